// SPDX-License-Identifier: MIT
// Whether this process may trace a child through libpctx (a container or
// the Yama policy may forbid it), and a test's skip when it may not.
// Header-only: only tests that link libpctx (target pctx) include it.
#pragma once

#include <libpctx.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace cpcprof::test {

// Tries once per program to run /bin/true under libpctx; *why: what
// libpctx said when it could not.
inline bool ptrace_works(std::string *why = nullptr) {
    static int ok = -1;
    static std::string said;
    if (ok < 0) {
        char prog[] = "/bin/true";
        char *argv[] = {prog, nullptr};
        pctx_t *p =
            pctx_create(prog, argv, nullptr, 0, [](const char *fn, const char *fmt, va_list ap) {
                char buf[1024];
                std::vsnprintf(buf, sizeof buf, fmt, ap);
                said += std::string(fn) + ": " + buf;
            });
        ok = p != nullptr;
        if (p != nullptr) {
            pctx_run(p, 0, 0, nullptr);
            pctx_release(p);
        }
    }
    if (why != nullptr)
        *why = said;
    return ok == 1;
}

} // namespace cpcprof::test

#define SKIP_WITHOUT_PTRACE()                                                                      \
    do {                                                                                           \
        std::string why_;                                                                          \
        if (!::cpcprof::test::ptrace_works(&why_))                                                 \
            GTEST_SKIP() << "this process may not ptrace its children here: " << why_;             \
    } while (0)
