// SPDX-License-Identifier: MIT
// The way into the overflow handler and out of it to the program: the
// SIGEMT entry the agent installs, the flag that stops sampling, the mark
// of the agent's own code, and the program's SIGEMT action that signals
// which are not overflows go to (handler_entry.cpp, signal context).  The
// program's action itself is declared in signals.h (program_sampling_action,
// forward_to_program, AgentCode), run_program_action in disposition.h and
// sampling_stopped in overflow_signal.h.
#pragma once

#include <signal.h>

namespace cpcprof::agent {

// [async-signal-safe] The handler installed for SIGEMT: overflows go to the
// sampling handler (set_sampling_handler) until sampling stops; then they
// are left without a restart, so that each thread's counters stop at its
// next overflow.
void sampling_entry(int sig, siginfo_t *si, void *uc);

// Ordinary context, before sampling_entry is installed.
void set_sampling_handler(void (*handler)(int, siginfo_t *, void *));

// [async-signal-safe] The calling thread runs the agent's own code (an
// AgentCode lives on its stack).
bool in_agent_code();

// Sampling stops in this process (watch_overflow_signals).  Returns
// whether it had stopped already.
bool stop_sampling();

} // namespace cpcprof::agent
