// SPDX-License-Identifier: MIT
#include "profiler/tools/cpc_messages.h"

#include <cstdio>
#include <cstring>

namespace cpcprof::tools {

namespace {

bool g_debug = false;
thread_local std::string t_message;

} // namespace

void set_message_debug(bool on) {
    g_debug = on;
}

bool message_debug() {
    return g_debug;
}

void keep_message(const char *fn, int, const char *fmt, va_list ap) {
    char msg[1024];
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = std::strlen(msg);
    while (n > 0 && msg[n - 1] == '\n')
        msg[--n] = '\0';
    t_message = g_debug ? std::string(fn) + ": " + msg : std::string(msg);
}

std::string take_message() {
    std::string m;
    m.swap(t_message);
    return m;
}

} // namespace cpcprof::tools
