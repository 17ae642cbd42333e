// SPDX-License-Identifier: MIT
// Overflow delivery: the kernel's notification - perf's sigtrap (SIGTRAP,
// si_code TRAP_PERF, synchronous in the counting thread) or the timer
// backend's SIGTRAP (si_code SI_TIMER, counting_timer.h) - is caught here
// and turned into the SIGEMT of the illumos pages: the program's SIGEMT
// handler is run from the SIGTRAP handler with si_code EMT_CPCOVF, si_addr
// = the interrupted PC and the interrupted context, its sa_mask added.  When the
// kernel must act (default action, ignored or blocked SIGEMT,
// SA_RESETHAND), a real SIGEMT is queued to the thread instead.
#pragma once

#include <signal.h>
#include <sys/types.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6 // si_code of perf's sigtrap (glibc 2.36 lacks the name)
#endif

namespace cpc {

// The signal number SIGEMT stands for (CPC_SIGEMT or SIGRTMIN+5).
int sigemt_signal();

// Installs the SIGTRAP handler once.  Not async-signal-safe.
void install_overflow_handler();

// Where the program promised, with CPC_SIGEMT_STABLE=1, not to change the
// disposition of SIGEMT while an overflow set is bound, reads it now for
// the calling thread's overflows, which then use it instead of reading it
// each time.  Called when a thread binds a set with an overflow request
// (itself, or by inheritance).  Not async-signal-safe.
void cache_sigemt_disposition();

// [async-signal-safe] Queues SIGEMT (EMT_CPCOVF, si_addr = pc) to thread
// tid (a new thread's first overflow, and the cases the kernel handles).
void raise_sigemt(pid_t tid, void *pc);

} // namespace cpc
