// SPDX-License-Identifier: MIT
#include "profiler/tools/cputrack_format.h"

#include <cstdio>

namespace cpcprof::tools {

namespace {

void put(std::string &s, const char *fmt, auto... args) {
    char buf[128];
    std::snprintf(buf, sizeof buf, fmt, args...);
    s += buf;
}

std::string ending(std::string s, std::string_view suffix) {
    if (!suffix.empty()) {
        s += " # ";
        s += suffix;
    }
    s += '\n';
    return s;
}

} // namespace

std::string CputrackLayout::header(const std::vector<std::string> &labels,
                                   std::string_view suffix) const {
    std::string s;
    put(s, "%7s ", "time");
    if (pid)
        put(s, "%6s ", "pid");
    put(s, "%3s %10s ", "lwp", "event");
    if (tsc)
        put(s, "%9s ", "tsc");
    for (const std::string &l : labels)
        put(s, "%9s ", l.c_str());
    return ending(std::move(s), suffix);
}

std::string CputrackLayout::sample(double secs, long pid_, long lwp, std::string_view label,
                                   uint64_t tick, const std::vector<uint64_t> &values,
                                   std::string_view suffix) const {
    std::string s;
    put(s, "%7.3f ", secs);
    if (pid)
        put(s, "%6ld ", pid_);
    put(s, "%3ld %10.*s ", lwp, int(label.size()), label.data());
    if (tsc)
        put(s, "%9lld ", static_cast<long long>(tick));
    for (uint64_t v : values)
        put(s, "%9lld ", static_cast<long long>(v));
    return ending(std::move(s), suffix);
}

std::string CputrackLayout::note(double secs, long pid_, long lwp, std::string_view label,
                                 size_t columns, std::string_view suffix) const {
    std::string s;
    put(s, "%7.3f ", secs);
    if (pid)
        put(s, "%6ld ", pid_);
    put(s, "%3ld %10.*s ", lwp, int(label.size()), label.data());
    for (size_t i = 0; i < columns + (tsc ? 1 : 0); ++i)
        put(s, "%9s ", "");
    return ending(std::move(s), suffix);
}

} // namespace cpcprof::tools
