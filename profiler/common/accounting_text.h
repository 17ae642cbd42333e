// How record's summary, report's header and check say what a profile
// lost: one wording everywhere.
#pragma once

#include <storage/records.h>

#include <cstdio>
#include <string>

namespace cpcprof {

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

} // namespace cpcprof
