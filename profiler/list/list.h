// SPDX-License-Identifier: MIT
// `cpcprof list [--json]`: the events this machine can count, as libcpc
// offers them, grouped.
//
// Plain text (default), on stdout: a first line that says whether the
// machine has a hardware PMU, then one heading per group and one event
// name per line, indented:
//
//   hardware PMU: none on this machine: only software events can be counted
//   hardware PMU: yes (<interface>)
//
//   generic events (generic_events(3CPC)):
//     PAPI_tot_cyc
//   platform events:
//     cycles
//   software events:
//     cpu-clock
//
// A group with no event says "(none on this machine)".  --json prints one
// object: {"hardware_pmu": bool, "interface": "...", "generic": [...],
// "platform": [...], "software": [...]}.
//
// Exit status: 0 listed, 1 libcpc could not be opened, 2 usage error.
#pragma once

#include <libcpc.h>

#include <string>
#include <vector>

namespace cpcprof::list {

struct EventList {
    bool hardware_pmu = false;
    std::string interface;             // cpc_cciname()
    std::vector<std::string> generic;  // cpc_walk_generic_events_all()
    std::vector<std::string> platform; // cpc_walk_events_all() but the software events
    std::vector<std::string> software; // cpc_walk_events_all() that are perf software events
    // Listed events whose every occurrence is in kernel mode on this
    // backend (perf_event's context switches and migrations): cpcprof
    // records user mode, where they read 0.
    std::vector<std::string> kernel_only;
};

// What libcpc offers on this machine (it lists only events it can open).
EventList read_event_list(cpc_t *cpc);

// perf's software events (PERF_TYPE_SOFTWARE) by the names libcpc gives
// them: they count without a hardware PMU.
bool is_software_event(const std::string &name);

std::string format_text(const EventList &list);
std::string format_json(const EventList &list);

int list_main(const std::vector<std::string> &args);

} // namespace cpcprof::list
