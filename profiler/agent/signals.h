// SPDX-License-Identifier: MIT
// The signals the profiler relies on stay the agent's: the sampling signal
// (SIGEMT) and the kernel's overflow signal (SIGTRAP, overflow_signal.h).
// See signals.cpp.
#pragma once

#include "profiler/agent/disposition.h"

#include <signal.h>

namespace cpcprof::agent {

// [async-signal-safe] Whether the agent samples this process (its signal
// is guarded).
bool signals_guarded();

// Installs the agent's SIGEMT handler with the real sigaction.  Once
// sampling stopped in the process (overflow_signal.h), overflows reach
// `handler` no more and are not restarted.
bool install_sampling_handler(void (*handler)(int, siginfo_t *, void *));

// [async-signal-safe] Passes a SIGEMT that is not an overflow to the
// action the program installed for it, if any (handler_entry.cpp).
void forward_to_program(int sig, siginfo_t *si, void *uc);

// [async-signal-safe] Whether the agent keeps sig for itself now: SIGTRAP
// once libcpc's handler is installed, SIGEMT while the agent samples.
bool kept_signal(int sig);

// [async-signal-safe] The program's SIGEMT action (handler_entry.cpp).
ProgramAction &program_sampling_action();

// Marks the agent's own code on this thread for as long as it lives: the
// wrappers then pass everything through (the drain thread's masks), and
// libcpc's installation of its SIGTRAP handler in the agent's bind is
// recognised.  [async-signal-safe] (handler_entry.cpp)
struct AgentCode {
    AgentCode();
    ~AgentCode();
};

// [async-signal-safe] syscall(3) called by the program (caller: its
// return address) with `number` and arguments a[0..5]: an rt_sigaction on
// a signal the agent keeps is done as sigaction(2) would be (true, result
// in *rc).  libcpc's and the agent's own calls reach the kernel.
bool program_sigaction_syscall(long number, const long *a, const void *caller, long *rc);

// Drain thread: reports what the wrappers saw, once each.
void report_signal_findings();

} // namespace cpcprof::agent
