// SPDX-License-Identifier: MIT
// Parking a new process while it changes tracer.
//
// ptrace cannot hand a tracee to another tracer: the old one must detach
// before the new one seizes, and in between the process would run.  So
// the old tracer parks it first, from its first stop after fork: the
// registers are turned back onto the system call instruction with the
// number of pause(2), every signal is blocked (PTRACE_SETSIGMASK), and the
// process, once detached, sleeps in pause() doing nothing.  The new tracer
// seizes it, interrupts the pause, and puts the saved registers and mask
// back, with no system call to restart: the process goes on as if fork
// had just returned 0 in it.  No signal is involved, so its parent sees no
// stop or continue of the child.
//
// The register layout is the architecture's: x86-64 only for now (other
// architectures report ENOSYS and the child is not followed).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>

namespace pctx {

struct Parked {
    user_regs_struct regs{};
    uint64_t sigmask = 0;
};

// tid is in a ptrace-stop right after fork (its first stop).  Saves its
// state in *out and parks it: 0 or errno.
int park(pid_t tid, Parked *out);

// tid is in a ptrace-stop while parked: puts the saved state back.
int unpark(pid_t tid, const Parked &saved);

} // namespace pctx
