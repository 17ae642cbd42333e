// SPDX-License-Identifier: MIT
// Native (processor-specific) events through libpfm4.
//
// libpfm4 knows the event tables of Intel and AMD processors.  It picks the
// host's PMU, or the one named by LIBPFM_FORCE_PMU (read once, at the first
// call into this file), which lets tests check encodings for processors this
// machine does not have.  Nothing here opens a perf event.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cpc {

struct NativeAttr {
    std::string name; // illumos attribute name: umask, edge, inv, cmask, anythr
    uint64_t value;
};

// The core PMU libpfm4 found (or was forced to).
struct PfmPmu {
    std::string name;   // libpfm4 short name, e.g. "skl", "amd64_fam19h_zen3"
    std::string desc;   // e.g. "Intel Skylake"
    bool intel = false; // vendor
    bool amd = false;
    unsigned num_gp = 0;    // general-purpose counters
    unsigned num_fixed = 0; // fixed counters
};

// The default core PMU, or nullopt when libpfm4 knows none for this machine.
std::optional<PfmPmu> pfm_core_pmu();

enum class PfmStatus {
    ok,
    unknown_event,     // libpfm4 does not know the name
    unknown_attribute, // attribute name not supported by this PMU
    attr_out_of_range, // value does not fit the field
};

// Encodes "EVENT[:UMASK...]" for the core PMU into out->type/config/config1/
// config2.  attrs are illumos attributes (umask, edge, inv, cmask, anythr)
// applied on top.  Privilege-level bits are not set here.
PfmStatus pfm_encode(std::string_view name, std::span<const NativeAttr> attrs,
                     perf_event_attr *out);

// Calls fn with the name of every event of the core PMU (no umasks).
void pfm_for_each_event(const std::function<void(const std::string &)> &fn);

// The core PMU's native event behind an illumos generic (PAPI_*) name that
// perf's generic events do not cover, e.g. PAPI_l2_tcm; nullopt if none.
std::optional<std::string> pfm_generic_native(std::string_view papi_name);

} // namespace cpc
