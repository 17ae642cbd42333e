// SPDX-License-Identifier: MIT
// The capability text that `cputrack -h` and `cpustat -h` print after their
// usage (illumos caps.c): the counter interface, the specification syntax,
// the generic and platform events per counter, the attributes a
// specification may use, and the processor reference.
#pragma once

#include <libcpc.h>

#include <string>
#include <vector>

namespace cpcprof::tools {

// What the text is made of, read from libcpc's walkers (or made up by tests).
struct Capabilities {
    std::string cciname;
    std::string cpuref;
    std::vector<std::vector<std::string>> generic;  // per counter
    std::vector<std::vector<std::string>> platform; // per counter
    std::vector<std::string> attrs;                 // as cpc_walk_attrs() gives them
};

Capabilities read_capabilities(cpc_t *cpc);

// Whether the machine has hardware counters: libcpc lists `cycles` or
// `instructions` only where it can open them.  Without them only software events (cpu-clock,
// page-faults, ...) count; `cpcprof record` then samples cpu-clock.
bool has_hardware_pmu(cpc_t *cpc);

// Lines wrap before column 76; continuation lines start with two tabs and a
// space (column 17).
std::string format_capabilities(const Capabilities &caps);

} // namespace cpcprof::tools
