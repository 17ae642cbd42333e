// SPDX-License-Identifier: MIT
// Who may be put under control.
//
// The kernel lets a process trace another when it has CAP_SYS_PTRACE, or
// when the target's real, effective and saved uids and gids all equal the
// caller's and the target is dumpable.  illumos libpctx also refuses, to a
// caller without privilege, set-id processes and programs (and programs it
// cannot read).  libpctx checks all that from /proc before it attaches
// anything, so that a refusal says why and leaves the target untouched; a
// kernel refusal (EPERM from PTRACE_SEIZE) is reported as EACCES too.
#pragma once

#include "libcpc/src/pctx_proc.h"

namespace pctx {

// Whether the calling thread has CAP_SYS_PTRACE in effect.
bool privileged();

// Why the caller may not capture the process st describes: a message with
// one %d (the pid) and its errno in *err; null when it may.
const char *capture_refusal(const proc::Status &st, int *err);

// Whether the program at path may be started under control: 0, or EACCES
// for a set-id or unreadable program when the caller is not privileged.
int program_refusal(const char *path);

} // namespace pctx
