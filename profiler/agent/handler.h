// The SIGEMT overflow handler (signal context).
#pragma once

#include <signal.h>

namespace cpcprof::agent {

// [async-signal-safe] Records the interrupted PC and stack into the
// thread's ring and restarts the counters.
void on_overflow(int sig, siginfo_t *si, void *uc);

} // namespace cpcprof::agent
