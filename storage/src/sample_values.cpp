// SPDX-License-Identifier: MIT
#include "storage/sample_values.h"

#include <algorithm>

namespace cpcprof::storage {

std::string impossible_values(const RunInfo &run, std::span<const uint64_t> values) {
    size_t n = std::min(values.size(), run.events.size());
    for (size_t e = 0; e < n; ++e) {
        const EventInfo &ev = run.events[e];
        if (ev.sampling && ev.period != 0 && values[e] != ev.period)
            return ev.name + " value " + std::to_string(values[e]) + " is not its period " +
                   std::to_string(ev.period);
        if (ev.name == kOffCpuEvent && !ev.sampling && values[e] != 0)
            return ev.name + " value " + std::to_string(values[e]) +
                   " in a sample (off-CPU time is not sampled)";
        if (!ev.sampling && values[e] > kMaxCountPerSample)
            return ev.name + " value " + std::to_string(values[e]) +
                   " is beyond what one sampling period can count (2^63)";
    }
    return {};
}

} // namespace cpcprof::storage
