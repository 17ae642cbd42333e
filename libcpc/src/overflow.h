// Overflow delivery: the kernel's perf sigtrap (SIGTRAP, si_code
// TRAP_PERF, synchronous in the counting thread) is caught here and turned
// into the SIGEMT of the illumos pages: a real-time signal queued to the
// same thread with si_code EMT_CPCOVF and si_addr = the interrupted PC.
// SIGEMT is blocked while the SIGTRAP handler runs, so the queued signal is
// delivered after it returns, with the interrupted context as ucontext;
// the program's own sigaction(SIGEMT) disposition (handler, mask,
// SA_RESTART, default action) applies exactly as for any signal.
#pragma once

#include <sys/types.h>

namespace cpc {

// The signal number SIGEMT stands for (CPC_SIGEMT or SIGRTMIN+5).
int sigemt_signal();

// Installs the SIGTRAP handler once.  Not async-signal-safe.
void install_overflow_handler();

// [async-signal-safe] Queues SIGEMT (EMT_CPCOVF, si_addr = pc) to thread tid.
void raise_sigemt(pid_t tid, void *pc);

} // namespace cpc
