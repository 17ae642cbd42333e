// SPDX-License-Identifier: MIT
// SIGTRAP, the signal the kernel raises in a thread whose counter
// overflows, stays libcpc's: see overflow_signal.cpp.
#pragma once

#include "profiler/agent/disposition.h"

#include <signal.h>

#include <string>

namespace cpcprof::agent {

using sigaction_fn = int (*)(int, const struct sigaction *, struct sigaction *);

// libcpc's installation of its SIGTRAP handler (the agent's first bind):
// installs it with `real`, keeps it, and gives libcpc, as the disposition
// it replaced, the agent's dispatcher to the program's SIGTRAP action.
// The program's SIGTRAP handler asked for the alternate signal stack (Go's
// runtime requires it of every handler it is given): libcpc's handler,
// which runs it for the program's own traps, then asks for it too, and
// stops asking when the program's handler does not.  Otherwise overflows
// stay off a program's alternate stacks, which are often smaller than the
// kernel's signal frame (libcpc's install_overflow_handler).
void follow_program_trap_stack(const struct sigaction &program);

int capture_overflow_handler(sigaction_fn real, const struct sigaction *act, struct sigaction *old);

// Whether libcpc's SIGTRAP handler is installed and guarded.
// [async-signal-safe]
bool overflow_handler_captured();

// The program's SIGTRAP action, which it sets and reads through the
// sigaction wrapper while libcpc's handler stays installed.
// [async-signal-safe]
ProgramAction &program_trap_action();

// Drain thread: reads the dispositions of SIGTRAP and of the sampling
// signal with the raw system call.  One that the program replaced behind
// the wrappers' backs (a runtime that takes every signal with its own
// rt_sigaction, a fork child resetting them all) is put back at once -
// the program's choice becomes the action its own signals get - and
// sampling stops in this process: the recorder is told which and why.
// Not while an exec is under way (signals_before_exec): the dispositions
// the exec path sets are the agent's own.
void watch_overflow_signals();

// Whether sampling stopped in this process (watch_overflow_signals).
// [async-signal-safe] (handler_entry.cpp)
bool sampling_stopped();

// exec: a signal the program ignores stays ignored in the program it
// starts (execve(2)), so the kernel's disposition of each kept signal the
// program ignores becomes SIG_IGN just before the exec (an overflow until
// then is ignored too; the exec removes the counters), and the agent's
// again if the exec fails.  Handlers are reset by the exec whoever set
// them.
void signals_before_exec();
void signals_after_failed_exec();

// A fork child of a process where sampling stopped is not sampled either:
// says so.
void say_stopped_in_fork_child();

// Records the agent's own SIGEMT action as installed, for the watch.
void note_sampling_action();

} // namespace cpcprof::agent
