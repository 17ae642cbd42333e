// SPDX-License-Identifier: MIT
#include "profiler/symbolize_profile/fetch_progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace cpcprof::symbolize_profile {

namespace {

// bytes in the unit that suits scale (the whole's size, or bytes itself).
std::string size_text(long bytes, long scale) {
    char b[32];
    if (scale < 10'000)
        std::snprintf(b, sizeof b, "%ld bytes", bytes);
    else if (scale < 10'000'000)
        std::snprintf(b, sizeof b, "%.0f kB", double(bytes) / 1e3);
    else
        std::snprintf(b, sizeof b, "%.1f MB", double(bytes) / 1e6);
    return b;
}

} // namespace

FetchProgressLines::FetchProgressLines(std::string servers, std::string bound)
    : servers_(std::move(servers)), bound_(std::move(bound)), tty_(isatty(STDERR_FILENO) == 1) {}

FetchProgressLines::~FetchProgressLines() {
    end_line();
}

void FetchProgressLines::operator()(const symbolize::FetchProgress &p) {
    if (p.seconds < 1)
        return;
    if (p.what != what_) {
        end_line();
        what_ = p.what;
        next_s_ = 0;
    }
    if (!tty_ && p.seconds < next_s_)
        return;
    next_s_ = p.seconds + 10;
    const std::string &from = p.server.empty() ? servers_ : p.server;
    // Before a server answers, libdebuginfod passes a count of its waits,
    // not bytes.
    std::string got = p.server.empty() || p.done <= 0 ? "no answer"
                      : p.total > 0
                          ? size_text(p.done, p.total) + " of " + size_text(p.total, p.total)
                          : size_text(p.done, p.done);
    std::fprintf(stderr, "%scpcprof: fetching %s from %s: %s after %.0f s (%s)%s",
                 tty_ ? "\r\033[K" : "", p.what.c_str(), from.c_str(), got.c_str(), p.seconds,
                 bound_.c_str(), tty_ ? "" : "\n");
    open_line_ = tty_;
}

void FetchProgressLines::end_line() {
    if (open_line_)
        std::fputc('\n', stderr);
    open_line_ = false;
}

} // namespace cpcprof::symbolize_profile
