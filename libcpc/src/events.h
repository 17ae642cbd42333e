// SPDX-License-Identifier: MIT
// Event names: perf's symbolic names (hardware, cache, software), the
// illumos generic PAPI_* names, libpfm4 native names and raw codes, each
// turned into the type/config words of a perf_event_attr.
#pragma once

#include "libcpc.h"
#include "libcpc/src/machine.h"

#include <linux/perf_event.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cpc {

struct SymbolicEvent {
    std::string name;
    uint32_t type;
    uint64_t config;
};

// perf's symbolic names, as `perf list` prints them (aliases included).
const std::vector<SymbolicEvent> &symbolic_events();

// The illumos generic names and the perf name each maps to on every
// processor (empty when only a processor table can provide it).
struct GenericEvent {
    const char *papi;
    const char *perf; // symbolic name, or nullptr
};
std::span<const GenericEvent> generic_events();

struct ResolvedEvent {
    perf_event_attr attr{}; // type, config, config1, config2 set
    bool generic = false;   // a PAPI_* name
    bool software = false;  // needs no hardware counter
};

struct ResolveError {
    int subcode = 0; // CPC_* subcode
    std::string message;
};

// Resolves name with its attributes against machine m.  Does not probe.
std::optional<ResolvedEvent> resolve_event(const Machine &m, std::string_view name,
                                           std::span<const cpc_attr_t> attrs, ResolveError *err);

// The type/config for a name, ignoring attributes and countability
// (used while building the machine's lists).
std::optional<perf_event_attr> encode_name(const Machine &m, std::string_view name);

} // namespace cpc
