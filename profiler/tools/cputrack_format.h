// SPDX-License-Identifier: MIT
// The lines cputrack(1) prints (illumos cputrack.c):
//
//   header  "%7s " time ["%6s " pid] "%3s %10s " lwp event ["%9s " tsc] "%9s " per counter
//   sample  "%7.3f " secs ["%6d " pid] "%3d %10s " lwp label ["%9lld " tick] "%9lld " per value
//   note    as a sample, with blank columns for the tick and values (fork, exec)
//
// followed by " # <text>" (the specification when there are several, the
// new pid of a fork, the command line of an exec) or nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::tools {

struct CputrackLayout {
    bool pid = false; // -f: a pid column
    bool tsc = false; // -t: a tsc column

    std::string header(const std::vector<std::string> &labels, std::string_view suffix) const;
    std::string sample(double secs, long pid, long lwp, std::string_view label, uint64_t tick,
                       const std::vector<uint64_t> &values, std::string_view suffix) const;
    std::string note(double secs, long pid, long lwp, std::string_view label, size_t columns,
                     std::string_view suffix) const;
};

} // namespace cpcprof::tools
