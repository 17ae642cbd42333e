// SPDX-License-Identifier: MIT
// The agent's process: whether it is sampled, what the recorder is told
// about it, and the stages of its life (start.cpp, fork.cpp,
// process_end.cpp), as they, thread creation (threads.cpp) and the exec
// wrappers (exec.cpp) see each other.  Ordinary context only.
#pragma once

#include "profiler/agent/state.h"

#include <sys/types.h>

#include <string>

namespace cpcprof::agent {

// What the agent does in this process.
enum class Mode {
    off,     // not recorded (no configuration, or --no-children)
    sampled, // sampled, and reported to the recorder
    passive, // only its hello and exit status are sent (a process under a
             // seccomp filter, counters that could not be set up)
};

Mode mode();
void set_mode(Mode m);

// The agent samples this process.
bool sampling();

// The agent samples this process, or only reports its hello and exit
// status.
bool reporting();

// The process the agent set itself up in (a vfork child has another pid).
pid_t agent_pid();
// The agent sets itself up in the calling process (getpid()).
void set_agent_pid();

// The process's name (its main thread's, /proc/self/comm); "" unreadable.
std::string process_name();

// Messages to the recorder about this process: it started (its pid,
// parent, executable and arguments), it ended with this exit status.
void send_hello();
void send_bye(int exit_status);

// Tells the recorder that process pid (0: this one), or what it execs, is
// not sampled.
void send_unsampled(const std::string &reason, pid_t pid = 0);

// The same of this process in place of its hello (kEnvRings: the
// recorder's rings say it): the hello's fields follow the reason.
void send_unsampled_instead_of_hello(const std::string &reason);

// thread_setup.cpp ----------------------------------------------------------

// Sets up the calling thread for sampling.  Its ring's pages are faulted
// in by the drain thread's next pass (see Slot::pages_pending).
void prepare_thread();

// start.cpp -----------------------------------------------------------------

// Why a process under a seccomp filter is not sampled.
inline constexpr const char *kSeccompReason = "runs under a seccomp filter; not sampled";

// The process is recorded but not sampled: reason (null: the error was
// sent already) goes to the recorder, its exit status will.  hello_said
// false: with the hello's fields (send_unsampled_instead_of_hello).
void go_passive(const char *reason, bool hello_said = true);

// Binds the set to the calling thread, inherited by the threads it starts;
// false, the error sent, when the kernel refuses.
bool bind_this_thread(State &s);

// fork.cpp ------------------------------------------------------------------

// pthread_atfork's child hook: the child starts over as a process of its
// own, or stops being recorded.
void after_fork_child();

// process_end.cpp -----------------------------------------------------------

// on_exit's hook: the samples and the exit status go to the recorder.
void on_process_exit(int status, void *);

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
