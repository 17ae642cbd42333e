// SPDX-License-Identifier: MIT
// What an event's values measure, for every command and the viewer: the
// clocks count nanoseconds, every other event occurrences.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace cpcprof::analysis {

// True for the events whose values are nanoseconds: the clocks cpu-clock
// and task-clock (any case), off-CPU time (storage::kOffCpuEvent) and
// wall-clock time (Query's kWallClockEvent).
// Other events count occurrences.
inline bool is_time_event(std::string_view name) {
    std::string lower;
    for (char c : name)
        lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    return lower == "cpu-clock" || lower == "task-clock" || lower == "off-cpu" ||
           lower == "wall-clock";
}

} // namespace cpcprof::analysis
