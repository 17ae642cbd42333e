// SPDX-License-Identifier: MIT
// What libcpc says on this machine, for tests that compare a tool's
// messages with libcpc's own or skip where counting is not allowed.
// Header-only: only tests that link libcpc include it.
#pragma once

#include <libcpc.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace cpcprof::test {

// libcpc's own message for adding this event (user mode) to a set here, or
// "" if it is accepted.
inline std::string libcpc_refusal(const char *event) {
    static std::string msg;
    msg.clear();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    if (cpc == nullptr)
        return "cpc_open failed";
    cpc_seterrhndlr(cpc, [](const char *, int, const char *fmt, va_list ap) {
        char buf[1024];
        std::vsnprintf(buf, sizeof buf, fmt, ap);
        msg = buf;
    });
    cpc_set_t *set = cpc_set_create(cpc);
    bool ok = cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0, nullptr) >= 0;
    cpc_close(cpc);
    return ok ? "" : msg;
}

// Whether this process may count kernel-side events of its own threads.
inline bool can_count_system() {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    if (cpc == nullptr)
        return false;
    cpc_set_t *set = cpc_set_create(cpc);
    cpc_set_add_request(cpc, set, "context-switches", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                        nullptr);
    bool ok = cpc_bind_curlwp(cpc, set, 0) == 0;
    cpc_close(cpc);
    return ok;
}

} // namespace cpcprof::test
