// SPDX-License-Identifier: MIT
// Processes under a seccomp filter.  A filter may kill the process at any
// system call it was not written for (SECCOMP_RET_KILL), and the agent's
// perf_event_open is such a call: the agent must not make it in a process
// that runs under a filter it does not know.  The kernel does not let an
// unprivileged process read its filter's verdicts, so the agent stays out
// of every such process: it says hello, tells the recorder that the
// process is not sampled and why, and sends its exit status at the end.
//
// The filters the recorder itself runs under are known: a container's
// default profile, inherited by the whole process tree, under which the
// recorder made its own perf_event_open calls and saw them refused with
// an error (libcpc then serves the clocks with POSIX CPU timers).  A
// process under exactly those filters is sampled; one that added its own
// is not.
//
// Filters are only ever added (and inherited by fork children and across
// exec): a process learns it is filtered from /proc/self/status when it
// starts, or from the program's own prctl(PR_SET_SECCOMP) or
// seccomp(SECCOMP_SET_MODE_FILTER), which the agent interposes.  A filter
// installed with a raw system call instruction is not seen until the next
// exec or fork.
#pragma once

namespace cpcprof::agent {

// Whether this process runs under a seccomp filter (or strict mode) other
// than the recorder's: the program installed one, or /proc/self/status
// says so.  Reads the file at most once per call while the answer is no.
bool under_seccomp();

// [async-signal-safe] Whether the program installed a filter through the
// interposed calls, or under_seccomp() has answered yes; no file read.
bool seccomp_known();

// The program is about to install a filter.  [async-signal-safe]
void note_seccomp();

} // namespace cpcprof::agent
