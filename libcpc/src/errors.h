// SPDX-License-Identifier: MIT
// Error reporting: the per-handle cpc_errhndlr_t, or "libcpc: fn: message"
// on stderr when none is set.  errno is left as the caller had it.
#pragma once

#include "libcpc.h"

namespace cpc {

// Subcode -1: a failure with no specific description (handler not called).
inline constexpr int kNoSubcode = -1;

// The fixed text illumos prints for a subcode ("Unknown event", ...).
const char *subcode_text(int subcode);

// Reports through cpc's handler (or stderr); cpc may be null.  Not
// async-signal-safe: formats with vfprintf.
void report(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// [async-signal-safe] Reports a fixed message; with no handler it is
// written with write(2).  For the fast paths used in overflow handlers.
void report_signal_safe(cpc_t *cpc, const char *fn, int subcode, const char *msg);

} // namespace cpc
