// The sampling signal (SIGEMT) stays the agent's: see signals.cpp.
#pragma once

#include <signal.h>

namespace cpcprof::agent {

// Whether the agent samples this process (its signal is guarded).
bool signals_guarded();

// Installs the agent's SIGEMT handler with the real sigaction.
bool install_sampling_handler(void (*handler)(int, siginfo_t *, void *));

// [async-signal-safe] Passes a SIGEMT that is not an overflow to the
// handler the program installed for it, if any.
void forward_to_program(int sig, siginfo_t *si, void *uc);

// Marks the agent's own code on this thread for as long as it lives: the
// mask wrappers then pass everything through.  [async-signal-safe]
struct AgentCode {
    AgentCode();
    ~AgentCode();
};

// Drain thread: reports what the wrappers saw, once each.
void report_signal_findings();

} // namespace cpcprof::agent
