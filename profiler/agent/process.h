// The agent's process (agent.cpp), as its thread creation (threads.cpp)
// and exec wrappers (exec.cpp) see it.  Ordinary context only.
#pragma once

#include <sys/types.h>

#include <string>

namespace cpcprof::agent {

// The agent samples this process.
bool sampling();

// The agent samples this process, or only reports its hello and exit
// status (a process under a seccomp filter, counters that could not be set
// up).
bool reporting();

// The process's name (its main thread's, /proc/self/comm); "" unreadable.
std::string process_name();

// The process the agent set itself up in (a vfork child has another pid).
pid_t agent_pid();

// Tells the recorder that process pid (0: this one), or what it execs, is
// not sampled.
void send_unsampled(const std::string &reason, pid_t pid = 0);

// Sets up the calling thread for sampling.
void prepare_thread();

// Lets in the calling thread's overflows that wait behind a SIGTRAP it
// blocked with a raw system call, so that they are counted (at the end of
// a thread, or of the process).
void deliver_pending_overflows();

// threads.cpp: threads started without counters (state.h) -----------------

// Before the first thread is started.
void init_thread_accounting();

// libcpc could not open the calling (new) thread's counters: msg says why.
void no_counters_in_this_thread(const char *msg);

// What this image could not sample (counts and CPU time), said to the
// recorder at its end or exec; nothing when every thread had counters.
void report_unsampled_threads();

// Fork child: only the calling thread is left.
void forget_unsampled_after_fork();

// Around the start of a fork child's drain thread, which is not the
// program's: it gets neither counters nor a slot.
void set_starting_drain(bool on);

} // namespace cpcprof::agent
