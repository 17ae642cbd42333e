// SPDX-License-Identifier: MIT
// Threads of the controlled process: creation, exit, exec and the end of
// the process, turned into the illumos callbacks.
//
// illumos stops the target at system call entry and exit; Linux ptrace has
// events instead:
//  - A new thread: PTRACE_EVENT_CLONE in its creator, and its own first
//    stop.  It is held there until init_lwp and lwp_create returned, so
//    that counters bound in init_lwp count its whole life.
//  - A thread that ends: PTRACE_EVENT_EXIT, where its counters still hold
//    everything it counted.  A thread in exit(2) while others live ends
//    alone: fini_lwp, then lwp_exit.  Any other end (exit_group, a fatal
//    signal, an exec replacing the image) ends the process or the image:
//    fini_lwp now, exit or exec once it is known which.  A thread that
//    vanishes without the event (some kernels skip it for SIGKILL) gets
//    fini_lwp when its end is reported: perf counters stay readable.
//  - exec: PTRACE_EVENT_EXEC comes after the exec succeeded.  Counters of
//    the old image's threads were detached at exec (perf remove_on_exec)
//    and hold the old image's final counts, which fini_lwp reads.
//  - The end of the process: the leader's end report, after every thread;
//    exit gets its wait status.
// Observers (libcpc) hear of a thread after its fini_lwp and lwp_exit
// returned, and drop its counters then.
#include "libcpc/src/pctx_proc.h"
#include "libcpc/src/pctx_ptrace.h"

#include <sys/syscall.h>

#include <algorithm>
#include <string>

namespace pctx {

namespace {

// fini_lwp (and lwp_exit) for a thread, once; then its observers.
int finish(pctx_t *p, pid_t tid, bool lwp_exit) {
    Task &t = p->tasks[tid];
    if (t.finished)
        return 0;
    t.finished = true;
    t.exiting = true;
    int r = call_fini_lwp(p, tid);
    if (lwp_exit)
        call_lwp_exit(p, tid);
    notify_gone(p, tid);
    return r;
}

void take_first_stop(Task &t, int status) {
    Stop s = decode(status);
    t.stopped = true;
    if (s.kind == Stop::signal)
        t.resume_sig = s.sig;
    else if (s.kind == Stop::group_stop)
        t.group_stop = true;
}

} // namespace

void on_clone(pctx_t *p, pid_t tid, pid_t child) {
    proc::Status st = proc::status(child);
    if (st.ok && st.tgid != p->pid) {
        on_fork(p, tid, child); // clone(2) of a new process
        return;
    }
    int status;
    if (!first_stop(p, child, &status))
        return; // gone before it ran
    Task &t = p->tasks[child];
    take_first_stop(t, status);
    if (call_init_lwp(p, child) != 0 || call_lwp_create(p, child) != 0) {
        p->running = -1;
        return;
    }
    resume(child, p->tasks[child]);
}

void on_exit_stop(pctx_t *p, pid_t tid) {
    p->tasks[tid].exiting = true;
    long nr = proc::syscall_nr(tid);
    bool others = std::any_of(p->tasks.begin(), p->tasks.end(), [tid](const auto &kv) {
        return kv.first != tid && !kv.second.exiting;
    });
    if (nr == SYS_exit && others) {
        finish(p, tid, true);
        return;
    }
    if (p->exit_lwp == 0 || nr == SYS_exit_group || nr == SYS_exit)
        p->exit_lwp = tid;
    if (finish(p, tid, false) != 0)
        p->fini_failed = true;
}

void on_death(pctx_t *p, pid_t tid, int status) {
    if (tid != p->pid) {
        if (finish(p, tid, false) != 0)
            p->fini_failed = true;
        p->tasks.erase(tid);
        // A leader that had ended before the capture (a zombie cannot be
        // traced) is not there to report the end: the last thread does.
        if (!p->tasks.empty())
            return;
    }
    // The leader is reported last: the process is gone.
    for (auto &kv : p->tasks) {
        if (finish(p, kv.first, false) != 0)
            p->fini_failed = true;
    }
    call_exit(p, p->exit_lwp != 0 ? p->exit_lwp : p->pid, status);
    p->tasks.clear();
    p->early.clear();
    p->phase = Phase::ended;
    if (p->running == 1)
        p->running = p->fini_failed ? -1 : 0;
}

void on_exec(pctx_t *p, pid_t tid, pid_t former) {
    (void)former; // its entry is among the old image's threads
    for (auto &kv : p->tasks)
        finish(p, kv.first, false); // illumos ignores these returns
    p->tasks.clear();
    p->early.clear();
    p->exit_lwp = 0;
    p->fini_failed = false;
    p->tasks[tid].stopped = true;
    // illumos watches exec only for these callbacks; without an exec
    // callback it then stops following the process.
    if (p->exec == nullptr && p->init_lwp == nullptr && p->fini_lwp == nullptr)
        return;
    if (p->exec == nullptr) {
        p->running = 0;
        return;
    }
    std::string name = proc::cmdline(tid);
    if (call_exec(p, tid, name.data()) != 0 || call_init_lwp(p, tid) != 0)
        p->running = -1;
}

} // namespace pctx
