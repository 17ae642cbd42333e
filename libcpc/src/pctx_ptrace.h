// SPDX-License-Identifier: MIT
// ptrace(2) as libpctx uses it: what a wait status means, and how a task
// is seized, resumed, waited for and let go.
#pragma once

#include "libcpc/src/pctx_impl.h"

#include <sys/ptrace.h>

namespace pctx {

// Every task is seized with these; new threads and children inherit them.
inline constexpr unsigned kTraceOptions = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                                          PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
                                          PTRACE_O_TRACEEXIT;

// What one wait status of a traced task says.
struct Stop {
    enum Kind {
        dead,       // exited or killed (status is its wait status)
        event_stop, // PTRACE_EVENT_CLONE, _FORK, _VFORK, _EXEC, _EXIT
        trap,       // PTRACE_EVENT_STOP with SIGTRAP: initial stop,
                    // PTRACE_INTERRUPT, or the end of a group-stop
        group_stop, // PTRACE_EVENT_STOP with a stopping signal
        signal,     // signal-delivery-stop: the signal is to be passed on
    } kind = dead;
    int event = 0;
    int sig = 0;
};

Stop decode(int status);

// PTRACE_SEIZE with kTraceOptions (plus EXITKILL): 0 or errno.
int seize(pid_t tid, bool exitkill);

// Waits for tid's next report: false when there is none to wait for (it
// was reaped, or is not ours).
bool wait_task(pid_t tid, int *status);

// Resumes a stopped task as its state says (signal to deliver, listen in
// a group-stop) and marks it running.
void resume(pid_t tid, Task &t);

// The event message of a task stopped at an event.
unsigned long event_msg(pid_t tid);

// The first report of a new task (thread or fork child) of p, taken from
// the early reports or waited for: false when it ended before stopping.
bool first_stop(pctx_t *p, pid_t tid, int *status);

} // namespace pctx
