// SPDX-License-Identifier: MIT
#include "libcpc/src/errors.h"

#include "libcpc/src/impl.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace cpc {

const char *subcode_text(int subcode) {
    switch (subcode) {
    case CPC_INVALID_EVENT:
        return "Unknown event";
    case CPC_INVALID_PICNUM:
        return "Invalid counter number";
    case CPC_INVALID_ATTRIBUTE:
        return "Unknown attribute";
    case CPC_ATTRIBUTE_OUT_OF_RANGE:
        return "Attribute out of range";
    case CPC_RESOURCE_UNAVAIL:
        return "Hardware resource unavailable";
    case CPC_PIC_NOT_CAPABLE:
        return "Counter cannot count requested event";
    case CPC_REQ_INVALID_FLAGS:
        return "Invalid flags in a request";
    case CPC_CONFLICTING_REQS:
        return "Requests conflict with each other";
    case CPC_ATTR_REQUIRES_PRIVILEGE:
        return "Attribute requires the cpc_cpu privilege";
    case CPC_PBIND_FAILED:
        return "Couldn't bind LWP to requested processor";
    case CPC_HV_NO_ACCESS:
        return "Hypervisor event access denied";
    default:
        return "Unknown error";
    }
}

static void call_handler(cpc_errhndlr_t *h, const char *fn, int subcode, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    h(fn, subcode, fmt, ap);
    va_end(ap);
}

void report(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...) {
    int saved = errno;
    cpc_errhndlr_t *h = cpc ? cpc->errfn.load(std::memory_order_acquire) : nullptr;
    va_list ap;
    va_start(ap, fmt);
    if (h != nullptr) {
        if (subcode != kNoSubcode)
            h(fn, subcode, fmt, ap);
    } else {
        char msg[1024];
        vsnprintf(msg, sizeof msg, fmt, ap);
        std::fprintf(stderr, "libcpc: %s: %s\n", fn, msg);
    }
    va_end(ap);
    errno = saved;
}

void report_signal_safe(cpc_t *cpc, const char *fn, int subcode, const char *msg) {
    int saved = errno;
    cpc_errhndlr_t *h = cpc ? cpc->errfn.load(std::memory_order_acquire) : nullptr;
    if (h != nullptr) {
        if (subcode != kNoSubcode)
            call_handler(h, fn, subcode, "%s", msg);
    } else {
        const char *parts[] = {"libcpc: ", fn, ": ", msg, "\n"};
        for (const char *p : parts) {
            ssize_t n = ::write(STDERR_FILENO, p, std::strlen(p));
            (void)n;
        }
    }
    errno = saved;
}

} // namespace cpc
