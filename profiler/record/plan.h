// SPDX-License-Identifier: MIT
// Which events a recording counts, checked with libcpc before the target
// starts, so that a bad event is reported at once.
#pragma once

#include "profiler/record/options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::record {

struct PlannedEvent {
    std::string name;
    uint64_t period; // sampling period of the first; 0 for the others
};

struct Plan {
    std::vector<PlannedEvent> events;
    bool hw_pmu = false;
    std::string backend;        // cpc_backend: "perf_event" or "posix-timer"
    std::string backend_reason; // why not perf_event_open ("" when used)
    std::string cpu_model;
    std::string notice;  // said once before recording (e.g. no PMU)
    std::string warning; // said even with -q (the period slows the program)
    // --kernel: the events count in the kernel too and samples taken there
    // keep the kernel's frames; where the user may not, why (said once,
    // kept in the profile).
    bool kernel = false;
    std::string kernel_missing;
};

std::optional<Plan> plan_events(const Options &o, std::string *error);

// Why the kernel's frames are not sampled for this user.
std::string kernel_frames_refused();

// "ev@period;ev@0" for the agent.
std::string events_env(const Plan &p);

} // namespace cpcprof::record
