// SPDX-License-Identifier: MIT
// How record's summary, report's header, check and the flame graph say
// what a profile lost, and what measured it: one wording everywhere.
#pragma once

#include "storage/records.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace cpcprof::analysis {

// "" when nothing was lost, else e.g. ", 12 of 3400 overflows dropped,
// 0.35 s of CPU time unsampled (threads without counters)".
inline std::string losses_text(const storage::Accounting &a) {
    std::string s;
    if (a.dropped != 0)
        s += ", " + std::to_string(a.dropped) + " of " + std::to_string(a.taken) +
             " overflows dropped";
    if (a.unsampled_ns != 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f", double(a.unsampled_ns) / 1e9);
        s += std::string(", ") + buf + " s of CPU time unsampled (threads without counters)";
    }
    return s;
}

// The share of samples whose stack reached a true root: "complete stacks:
// 99.6 %".  Rounded down, so that 100 % means every one; "" without
// samples; with call_graph "none" (PCs only) says no stacks were taken.
inline std::string complete_stacks_text(uint64_t complete, uint64_t samples,
                                        const std::string &call_graph) {
    if (call_graph == "none")
        return "complete stacks: none taken (--call-graph none)";
    if (samples == 0)
        return "";
    // Tenths of a percent, rounded down.
    auto tenths =
        static_cast<unsigned long long>(static_cast<unsigned __int128>(complete) * 1000 / samples);
    char buf[80];
    std::snprintf(buf, sizeof buf, "complete stacks: %llu.%llu %%", tenths / 10, tenths % 10);
    return buf;
}

// What took the samples: "perf_event", or "posix-timer, because
// perf_event_open refused (EPERM: a seccomp filter?)"; "" when the
// profile does not say (format 3).
inline std::string counters_text(const storage::RunInfo &run) {
    if (run.counters.empty() || run.counters_reason.empty())
        return run.counters;
    return run.counters + ", because " + run.counters_reason;
}

} // namespace cpcprof::analysis
