// SPDX-License-Identifier: MIT
#include "libcpc/src/events.h"

#include "libcpc/src/pfm_events.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cpc {

namespace {

void add_cache_events(std::vector<SymbolicEvent> &v) {
    struct Cache {
        const char *name;
        uint64_t id;
    };
    static const Cache caches[] = {
        {"L1-dcache", PERF_COUNT_HW_CACHE_L1D}, {"L1-icache", PERF_COUNT_HW_CACHE_L1I},
        {"LLC", PERF_COUNT_HW_CACHE_LL},        {"dTLB", PERF_COUNT_HW_CACHE_DTLB},
        {"iTLB", PERF_COUNT_HW_CACHE_ITLB},     {"branch", PERF_COUNT_HW_CACHE_BPU},
        {"node", PERF_COUNT_HW_CACHE_NODE},
    };
    struct Op {
        const char *access; // "loads"
        const char *miss;   // "load-misses"
        uint64_t id;
    };
    static const Op ops[] = {
        {"loads", "load-misses", PERF_COUNT_HW_CACHE_OP_READ},
        {"stores", "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE},
        {"prefetches", "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH},
    };
    for (const Cache &c : caches) {
        for (const Op &o : ops) {
            uint64_t base = c.id | (o.id << 8);
            v.push_back({std::string(c.name) + "-" + o.access, PERF_TYPE_HW_CACHE,
                         base | (uint64_t(PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16)});
            v.push_back({std::string(c.name) + "-" + o.miss, PERF_TYPE_HW_CACHE,
                         base | (uint64_t(PERF_COUNT_HW_CACHE_RESULT_MISS) << 16)});
        }
    }
}

std::vector<SymbolicEvent> build_symbolic() {
    std::vector<SymbolicEvent> v = {
        {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
        {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
        {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
        {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
        {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
        {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
        {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
        {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
        {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
        {"idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
        {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
        {"idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
        {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
        {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
        {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
        {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
        {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
        {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
        {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
        {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
        {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
        {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
        {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
        {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
        // Counts nothing: a ring on it carries only the records its flags
        // add (cpc_ring_open's CPC_RING_SWITCHES), as perf's.
        {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    };
    add_cache_events(v);
    return v;
}

// generic_events(3CPC) names with a processor-independent perf event.
// Names without one (nullptr) are served by the processor's table through
// libpfm4 when the PMU has a matching event.
const GenericEvent kGeneric[] = {
    {"PAPI_tot_cyc", "cycles"},
    {"PAPI_tot_ins", "instructions"},
    {"PAPI_br_ins", "branch-instructions"},
    {"PAPI_br_msp", "branch-misses"},
    {"PAPI_l1_dcm", "L1-dcache-load-misses"},
    {"PAPI_l1_dca", "L1-dcache-loads"},
    {"PAPI_l1_ldm", "L1-dcache-load-misses"},
    {"PAPI_l1_stm", "L1-dcache-store-misses"},
    {"PAPI_l1_icm", "L1-icache-load-misses"},
    {"PAPI_l1_ica", "L1-icache-loads"},
    {"PAPI_l3_tcm", "cache-misses"},
    {"PAPI_l3_tca", "cache-references"},
    {"PAPI_l3_ldm", "LLC-load-misses"},
    {"PAPI_l3_stm", "LLC-store-misses"},
    {"PAPI_tlb_dm", "dTLB-load-misses"},
    {"PAPI_tlb_im", "iTLB-load-misses"},
    {"PAPI_res_stl", "stalled-cycles-backend"},
    {"PAPI_stl_icy", "stalled-cycles-frontend"},
    {"PAPI_l2_tcm", nullptr},
    {"PAPI_l2_tca", nullptr},
    {"PAPI_l2_dcm", nullptr},
    {"PAPI_l2_ldm", nullptr},
    {"PAPI_l2_icm", nullptr},
    {"PAPI_fp_ins", nullptr},
    {"PAPI_fp_ops", nullptr},
    {"PAPI_vec_ins", nullptr},
    {"PAPI_tlb_tl", nullptr},
};

const SymbolicEvent *find_symbolic(std::string_view name) {
    for (const SymbolicEvent &e : symbolic_events())
        if (e.name == name)
            return &e;
    return nullptr;
}

const GenericEvent *find_generic(std::string_view name) {
    for (const GenericEvent &g : kGeneric)
        if (name == g.papi)
            return &g;
    return nullptr;
}

// "0x1c2", "450" (illumos: a number strtol consumes whole) or "r1c2" (perf).
std::optional<uint64_t> parse_raw(std::string_view name) {
    std::string s(name);
    int base = 0;
    if (s.size() > 1 && s[0] == 'r') {
        s = s.substr(1);
        base = 16;
    }
    if (s.empty() || s[0] == '-' || s[0] == '+')
        return std::nullopt;
    char *end = nullptr;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), &end, base);
    if (errno != 0 || end == s.c_str() || *end != '\0')
        return std::nullopt;
    return v;
}

perf_event_attr plain_attr(uint32_t type, uint64_t config) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    return a;
}

bool is_native_name(const Machine &m, std::string_view name) {
    return m.use_pfm && !name.empty() && name.find_first_of(" ,=") == std::string_view::npos;
}

} // namespace

const std::vector<SymbolicEvent> &symbolic_events() {
    static const std::vector<SymbolicEvent> v = build_symbolic();
    return v;
}

std::span<const GenericEvent> generic_events() {
    return kGeneric;
}

std::optional<perf_event_attr> encode_name(const Machine &m, std::string_view name) {
    if (const SymbolicEvent *s = find_symbolic(name))
        return plain_attr(s->type, s->config);
    if (const GenericEvent *g = find_generic(name)) {
        if (g->perf != nullptr)
            return encode_name(m, g->perf);
        if (auto native = pfm_generic_native(name); native && m.use_pfm)
            return encode_name(m, *native);
        return std::nullopt;
    }
    if (auto raw = parse_raw(name))
        return plain_attr(PERF_TYPE_RAW, *raw);
    if (is_native_name(m, name)) {
        perf_event_attr a = plain_attr(PERF_TYPE_RAW, 0);
        if (pfm_encode(name, {}, &a) == PfmStatus::ok)
            return a;
    }
    return std::nullopt;
}

namespace {

bool fail(ResolveError *err, int subcode, std::string msg) {
    if (err != nullptr) {
        err->subcode = subcode;
        err->message = std::move(msg);
    }
    return false;
}

// picnum: illumos pins a request to a counter; Linux places events itself,
// so the value is checked and otherwise has no effect.
bool check_picnum(const Machine &m, std::string_view name, uint64_t pic, ResolveError *err) {
    if (pic >= m.npic)
        return fail(err, CPC_INVALID_PICNUM,
                    "picnum " + std::to_string(pic) + " is not below " + std::to_string(m.npic));
    if (pic >= m.ngp && pic - m.ngp < m.fixed_events.size() && m.fixed_events[pic - m.ngp] != name)
        return fail(err, CPC_PIC_NOT_CAPABLE,
                    "counter " + std::to_string(pic) + " counts only " +
                        m.fixed_events[pic - m.ngp]);
    return true;
}

bool apply_raw_attrs(const Machine &m, std::span<const NativeAttr> attrs, perf_event_attr *a,
                     ResolveError *err) {
    for (const NativeAttr &na : attrs) {
        auto it = m.format.find(na.name);
        if (it == m.format.end())
            return fail(err, CPC_INVALID_ATTRIBUTE, "attribute " + na.name + " is unknown");
        if (!it->second.apply(na.value, a))
            return fail(err, CPC_ATTRIBUTE_OUT_OF_RANGE,
                        "value " + std::to_string(na.value) + " does not fit attribute " + na.name);
    }
    return true;
}

} // namespace

std::optional<ResolvedEvent> resolve_event(const Machine &m, std::string_view name,
                                           std::span<const cpc_attr_t> attrs, ResolveError *err) {
    std::string ename(name);
    std::vector<NativeAttr> native;
    for (const cpc_attr_t &ca : attrs) {
        if (ca.ca_name == nullptr || ca.ca_name[0] == '\0' || !m.has_attr(ca.ca_name)) {
            fail(err, CPC_INVALID_ATTRIBUTE,
                 std::string("attribute '") + (ca.ca_name ? ca.ca_name : "") +
                     "' is not supported on this processor");
            return std::nullopt;
        }
        if (std::strcmp(ca.ca_name, "picnum") == 0) {
            if (!check_picnum(m, name, ca.ca_val, err))
                return std::nullopt;
            continue;
        }
        native.push_back({ca.ca_name, ca.ca_val});
    }

    ResolvedEvent r;
    const SymbolicEvent *sym = find_symbolic(name);
    const GenericEvent *gen = sym ? nullptr : find_generic(name);
    if (sym != nullptr || gen != nullptr) {
        auto a = encode_name(m, name);
        if (!a) {
            fail(err, CPC_INVALID_EVENT,
                 "generic event " + ename + " has no counterpart on this processor");
            return std::nullopt;
        }
        if (!native.empty()) {
            fail(err, CPC_ATTRIBUTE_OUT_OF_RANGE,
                 "attributes cannot modify the " + std::string(gen ? "generic" : "symbolic") +
                     " event " + ename);
            return std::nullopt;
        }
        r.attr = *a;
        r.generic = gen != nullptr;
        r.software = a->type == PERF_TYPE_SOFTWARE;
        return r;
    }
    if (auto raw = parse_raw(name)) {
        r.attr = plain_attr(PERF_TYPE_RAW, *raw);
        if (!apply_raw_attrs(m, native, &r.attr, err))
            return std::nullopt;
        return r;
    }
    if (is_native_name(m, name)) {
        r.attr = plain_attr(PERF_TYPE_RAW, 0);
        switch (pfm_encode(name, native, &r.attr)) {
        case PfmStatus::ok:
            return r;
        case PfmStatus::unknown_attribute:
            fail(err, CPC_INVALID_ATTRIBUTE, "an attribute does not apply to " + ename);
            return std::nullopt;
        case PfmStatus::attr_out_of_range:
            fail(err, CPC_ATTRIBUTE_OUT_OF_RANGE,
                 "an attribute value is out of range for " + ename);
            return std::nullopt;
        case PfmStatus::unknown_event:
            break;
        }
    }
    fail(err, CPC_INVALID_EVENT, "event '" + ename + "' is not known on this machine");
    return std::nullopt;
}

} // namespace cpc
