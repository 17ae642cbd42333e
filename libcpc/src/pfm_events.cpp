// SPDX-License-Identifier: MIT
// Native events through libpfm4; contracts in pfm_events.h.
//
// Names are qualified with the core PMU ("skl::NAME"): unqualified, libpfm4
// searches every active PMU, and "cycles" would become perf's generic event.
#include "libcpc/src/pfm_events.h"

#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <mutex>
#include <type_traits>
#include <vector>

namespace cpc {
namespace {

struct Core {
    PfmPmu pmu;
    int first_event = -1; // libpfm4 opaque index, -1 when the PMU has none
};

// libpfm4, loaded at the first use of its tables rather than with libcpc:
// relocating its tables costs each process that loads libcpc about 0.8 ms
// at its start (cpcprof's agent is loaded into every process it profiles),
// and a program that counts only the kernel's software events never
// reads them.  Never unloaded.  Without the library (not installed) there
// is no core PMU: native events are unknown, the generic and software
// ones are not affected.
struct PfmLib {
    decltype(&::pfm_initialize) initialize = nullptr;
    decltype(&::pfm_get_pmu_info) get_pmu_info = nullptr;
    decltype(&::pfm_get_os_event_encoding) get_os_event_encoding = nullptr;
    decltype(&::pfm_find_event) find_event = nullptr;
    decltype(&::pfm_get_event_info) get_event_info = nullptr;
    decltype(&::pfm_get_event_attr_info) get_event_attr_info = nullptr;
    decltype(&::pfm_get_event_next) get_event_next = nullptr;
};

// Set once by core() (find_core); every other use follows a core() that
// found one.
const PfmLib *g_pfm = nullptr;

const PfmLib *load_pfm() {
    void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr)
        return nullptr;
    static PfmLib lib;
    bool ok = true;
    auto bind = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
        ok = ok && fn != nullptr;
    };
    bind(lib.initialize, "pfm_initialize");
    bind(lib.get_pmu_info, "pfm_get_pmu_info");
    bind(lib.get_os_event_encoding, "pfm_get_os_event_encoding");
    bind(lib.find_event, "pfm_find_event");
    bind(lib.get_event_info, "pfm_get_event_info");
    bind(lib.get_event_attr_info, "pfm_get_event_attr_info");
    bind(lib.get_event_next, "pfm_get_event_next");
    return ok ? &lib : nullptr;
}

bool iequals(std::string_view a, std::string_view b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) ==
               std::tolower(static_cast<unsigned char>(y));
    });
}

Core make_core(const pfm_pmu_info_t &info) {
    Core c;
    c.pmu.name = info.name;
    c.pmu.desc = info.desc ? info.desc : "";
    // libpfm4 describes Intel core PMUs as "Intel ..." (netburst: "Pentium4")
    // and names AMD ones "amd64_...".
    c.pmu.intel = c.pmu.desc.starts_with("Intel") || c.pmu.desc.starts_with("Pentium");
    c.pmu.amd = c.pmu.name.starts_with("amd64");
    // libpfm4's maximum: 8 on Intel big cores, only 4 with hyper-threading on.
    c.pmu.num_gp = static_cast<unsigned>(std::max(info.num_cntrs, 0));
    c.pmu.num_fixed = static_cast<unsigned>(std::max(info.num_fixed_cntrs, 0));
    c.first_event = info.first_event;
    return c;
}

// The first present core PMU, preferring a model table over the architectural
// fallback (is_dfl, e.g. ix86arch), which libpfm4 itself searches last.  With
// several present model tables (hybrid parts) the lowest PMU id wins.
std::optional<Core> find_core() {
    g_pfm = load_pfm();
    if (g_pfm == nullptr || g_pfm->initialize() != PFM_SUCCESS)
        return std::nullopt;
    std::optional<Core> fallback;
    for (int id = PFM_PMU_NONE; id < PFM_PMU_MAX; ++id) {
        pfm_pmu_info_t info{};
        info.size = sizeof(info);
        if (g_pfm->get_pmu_info(static_cast<pfm_pmu_t>(id), &info) != PFM_SUCCESS)
            continue;
        std::string_view name = info.name ? info.name : "perf";
        if (!info.is_present || info.type != PFM_PMU_TYPE_CORE || name == "perf" ||
            name == "perf_raw")
            continue;
        if (!info.is_dfl)
            return make_core(info);
        if (!fallback)
            fallback = make_core(info);
    }
    return fallback;
}

// pfm_initialize() must run once; lookups after it are read-only.
const std::optional<Core> &core() {
    static std::once_flag once;
    static std::optional<Core> found;
    std::call_once(once, [] { found = find_core(); });
    return found;
}

// "pmu::name" for the core PMU, or "" for another PMU or a malformed name
// (libpfm4 silently ignores everything after a comma).
std::string qualify(std::string_view name, const std::string &pmu) {
    if (name.empty() || name.find_first_of(std::string_view(",\0", 2)) != name.npos)
        return {};
    if (auto sep = name.find("::"); sep != name.npos)
        return iequals(name.substr(0, sep), pmu) ? std::string(name) : std::string();
    return pmu + "::" + std::string(name);
}

// Encodes str into a fresh attr.  size is set so that libpfm4 also returns
// config2 (with size 0 it copies back only the first 64 bytes).
int encode(const std::string &str, perf_event_attr *attr) {
    *attr = perf_event_attr{};
    attr->size = sizeof(*attr);
    pfm_perf_encode_arg_t arg{};
    arg.attr = attr;
    arg.size = sizeof(arg);
    return g_pfm->get_os_event_encoding(str.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
}

// Names of the modifiers (not unit masks) event idx accepts, including the
// perf_event ones (u, k, ...).
std::vector<std::string> modifiers(int idx) {
    std::vector<std::string> mods;
    pfm_event_info_t info{};
    info.size = sizeof(info);
    if (g_pfm->get_event_info(idx, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS)
        return mods;
    for (int i = 0; i < info.nattrs; ++i) {
        pfm_event_attr_info_t a{};
        a.size = sizeof(a);
        if (g_pfm->get_event_attr_info(idx, i, PFM_OS_PERF_EVENT, &a) != PFM_SUCCESS || !a.name ||
            a.type == PFM_ATTR_UMASK || a.type == PFM_ATTR_RAW_UMASK)
            continue;
        mods.emplace_back(a.name);
    }
    return mods;
}

bool has(const std::vector<std::string> &mods, std::string_view name) {
    return std::any_of(mods.begin(), mods.end(), [&](const auto &m) { return iequals(m, name); });
}

// Whether the qualified name selects a unit mask itself: any ":part" after the
// event that is neither "mod=value" nor a bare boolean modifier such as ":u".
bool names_umask(std::string_view qualified, const std::vector<std::string> &mods) {
    std::string_view rest = qualified.substr(qualified.find("::") + 2);
    for (auto colon = rest.find(':'); colon != rest.npos; colon = rest.find(':')) {
        rest.remove_prefix(colon + 1);
        std::string_view part = rest.substr(0, rest.find(':'));
        if (part.find('=') == part.npos && !has(mods, part))
            return true;
    }
    return false;
}

// illumos attribute -> libpfm4 modifier; value 0 is the default and omitted.
struct AttrMap {
    std::string_view illumos;
    std::string_view pfm;
    uint64_t max;
    bool intel_only;
};
constexpr std::array<AttrMap, 4> kModifiers{{
    {"edge", "e", 1, false},
    {"inv", "i", 1, false},
    {"cmask", "c", 0xff, false},
    {"anythr", "t", 1, true}, // AnyThread: Intel only, and gone from Icelake on
}};

struct Suffix {
    std::string text;
    bool umask = false;
};

// "umask" becomes libpfm4's raw unit mask ":0xNN", which replaces the event's
// default unit mask, as illumos's umask attribute replaces the table's.
// libpfm4 places and validates it per event; that is cleaner than OR-ing bits
// 8..15 afterwards, which would merge with a non-zero default umask and cannot
// encode events that have no default.  A name that already selects a unit
// mask takes no umask attribute.
PfmStatus add_umask(uint64_t value, bool name_has_umask, Suffix *out) {
    if (name_has_umask)
        return PfmStatus::unknown_attribute;
    if (value > 0xff)
        return PfmStatus::attr_out_of_range;
    char buf[8];
    std::snprintf(buf, sizeof(buf), ":0x%x", static_cast<unsigned>(value));
    out->text += buf;
    out->umask = true;
    return PfmStatus::ok;
}

PfmStatus add_modifier(const NativeAttr &attr, const std::vector<std::string> &mods, bool intel,
                       Suffix *out) {
    auto m = std::find_if(kModifiers.begin(), kModifiers.end(),
                          [&](const AttrMap &e) { return e.illumos == attr.name; });
    if (m == kModifiers.end() || (m->intel_only && !intel) || !has(mods, m->pfm))
        return PfmStatus::unknown_attribute;
    if (attr.value > m->max)
        return PfmStatus::attr_out_of_range;
    if (attr.value != 0)
        out->text += ":" + std::string(m->pfm) + "=" + std::to_string(attr.value);
    return PfmStatus::ok;
}

PfmStatus build_suffix(std::span<const NativeAttr> attrs, const std::string &qualified, int idx,
                       bool intel, Suffix *out) {
    if (attrs.empty())
        return PfmStatus::ok;
    auto mods = modifiers(idx);
    for (const auto &attr : attrs) {
        PfmStatus st = attr.name == "umask"
                           ? add_umask(attr.value, names_umask(qualified, mods), out)
                           : add_modifier(attr, mods, intel, out);
        if (st != PfmStatus::ok)
            return st;
    }
    return PfmStatus::ok;
}

// After the full string failed: blame the name when it does not encode on its
// own (except for a missing unit mask that the umask attribute supplies), and
// the attribute values otherwise, since their names were all checked.  Covers
// e.g. Intel's rule that edge needs cmask >= 1 and repeated attributes.
PfmStatus classify_failure(const std::string &qualified, const Suffix &suffix) {
    if (suffix.text.empty())
        return PfmStatus::unknown_event;
    perf_event_attr probe;
    int rc = encode(qualified, &probe);
    bool name_ok = rc == PFM_SUCCESS || (rc == PFM_ERR_UMASK && suffix.umask);
    return name_ok ? PfmStatus::attr_out_of_range : PfmStatus::unknown_event;
}

struct GenericNative {
    std::string_view papi;
    const char *native;
};

// Single native events for illumos generic names that perf's generic hardware
// and cache events cannot express.  Codes checked against the vendors' event
// lists (Intel SDM / perf's skylake JSON; AMD PPR / perf's amdzen3 JSON).
// Skylake has no single event for L2 data misses (reads plus RFOs) or for
// FLOPs, so PAPI_l2_dcm and PAPI_fp_ops stay unmapped there.
constexpr GenericNative kIntel[] = {
    {"PAPI_l2_tcm", "L2_RQSTS:MISS"},                // 0x24/0x3f
    {"PAPI_l2_tca", "L2_RQSTS:REFERENCES"},          // 0x24/0xff
    {"PAPI_l2_ldm", "L2_RQSTS:DEMAND_DATA_RD_MISS"}, // 0x24/0x21
    {"PAPI_l2_icm", "L2_RQSTS:CODE_RD_MISS"},        // 0x24/0x24
    {"PAPI_fp_ins", "FP_ARITH_INST_RETIRED:SCALAR_DOUBLE:SCALAR_SINGLE:128B_PACKED_DOUBLE:"
                    "128B_PACKED_SINGLE:256B_PACKED_DOUBLE:256B_PACKED_SINGLE"}, // 0xc7/0x3f
};

// Zen 2-4 L2CacheReqStat (0x64): hits plus misses of core-originated requests,
// so tcm/tca form a ratio.  FLOPs (0x03) need the kernel's merge-event pairing
// (Linux >= 5.7), which perf applies automatically.
constexpr GenericNative kAmd[] = {
    {"PAPI_l2_tcm", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS"}, // 0x09
    {"PAPI_l2_tca", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C_S:"
                    "LS_RD_BLK_L_HIT_X:LS_RD_BLK_L_HIT_S:LS_RD_BLK_X:LS_RD_BLK_C:"
                    "IC_FILL_HIT_X:IC_FILL_HIT_S:IC_FILL_MISS"},                // 0xff
    {"PAPI_l2_dcm", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C"},  // 0x08
    {"PAPI_l2_icm", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS"}, // 0x01
    {"PAPI_fp_ops", "RETIRED_SSE_AVX_FLOPS:ANY"},                               // 0x0f
};

} // namespace

std::optional<PfmPmu> pfm_core_pmu() {
    const auto &c = core();
    return c ? std::optional(c->pmu) : std::nullopt;
}

// On failure *out is left untouched.
PfmStatus pfm_encode(std::string_view name, std::span<const NativeAttr> attrs,
                     perf_event_attr *out) {
    const auto &c = core();
    if (!c || !out)
        return PfmStatus::unknown_event;
    std::string qualified = qualify(name, c->pmu.name);
    int idx = qualified.empty() ? -1 : g_pfm->find_event(qualified.c_str());
    if (idx < 0)
        return PfmStatus::unknown_event;
    Suffix suffix;
    if (PfmStatus st = build_suffix(attrs, qualified, idx, c->pmu.intel, &suffix);
        st != PfmStatus::ok)
        return st;
    perf_event_attr attr;
    if (encode(qualified + suffix.text, &attr) != PFM_SUCCESS)
        return classify_failure(qualified, suffix);
    out->type = attr.type;
    out->config = attr.config;
    out->config1 = attr.config1;
    out->config2 = attr.config2;
    return PfmStatus::ok;
}

void pfm_for_each_event(const std::function<void(const std::string &)> &fn) {
    const auto &c = core();
    if (!c)
        return;
    for (int idx = c->first_event; idx >= 0; idx = g_pfm->get_event_next(idx)) {
        pfm_event_info_t info{};
        info.size = sizeof(info);
        if (g_pfm->get_event_info(idx, PFM_OS_NONE, &info) == PFM_SUCCESS && info.name)
            fn(info.name);
    }
}

// A vendor table serves the generations that share its event names: an entry
// counts only where it encodes on the running PMU, so models lacking the name
// get nullopt.
std::optional<std::string> pfm_generic_native(std::string_view papi_name) {
    auto pmu = pfm_core_pmu();
    if (!pmu || (!pmu->intel && !pmu->amd))
        return std::nullopt;
    std::span<const GenericNative> table = pmu->intel ? std::span(kIntel) : std::span(kAmd);
    auto it = std::find_if(table.begin(), table.end(),
                           [&](const GenericNative &g) { return g.papi == papi_name; });
    if (it == table.end())
        return std::nullopt;
    perf_event_attr probe{};
    if (pfm_encode(it->native, {}, &probe) != PfmStatus::ok)
        return std::nullopt;
    return std::string(it->native);
}

} // namespace cpc
