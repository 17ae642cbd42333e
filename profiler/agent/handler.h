// SPDX-License-Identifier: MIT
// The SIGEMT overflow handler (signal context).
#pragma once

#include <signal.h>

namespace cpcprof::agent {

// [async-signal-safe] Records the interrupted PC and stack into the
// thread's ring and restarts the counters.
//
// Stack use: the unwinder writes frames straight into the ring's reserved
// record, so the handler's own frames (with libcpc's SIGTRAP handler that
// calls it) take well under 1 KiB, whatever the depth bound; bounded by
// tests/agent (HandlerStack) on a 2 KiB alternate stack.  The kernel's
// signal frame comes on top (about 3.4 KiB with AVX-512 state): libcpc's
// SIGTRAP handler is installed without SA_ONSTACK, so a program's
// alternate signal stack is used only when the program itself is running
// on it.
void on_overflow(int sig, siginfo_t *si, void *uc);

// Set by deliver_pending_overflows while it lets in the overflow signals a
// thread kept blocked with a raw system call: the PC they interrupt is the
// agent's, at the thread's end, not where the periods went, so on_overflow
// counts their overflows as dropped instead of storing them there.  (On
// the perf backend the kernel kept each one's PC: record_merged stores
// those.)
extern thread_local bool tls_releasing_blocked;

} // namespace cpcprof::agent
