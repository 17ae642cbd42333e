// SPDX-License-Identifier: MIT
// pctx_capture: control of a running process and all its threads.
//
// Everything that can be checked is checked from /proc before anything is
// attached (pctx_access.h).  Then every thread of /proc/PID/task is seized
// and interrupted, and the list is read again until it has no new thread
// (a thread made by one not yet seized is in the next reading; one made by
// a seized thread is attached by the kernel and reported at its creator's
// clone event).  Each thread's stop is collected; the process stays
// stopped until pctx_run, as illumos Pgrab leaves it.  Any failure lets go
// of what was taken: never half-attached.
#include "libcpc/src/pctx_access.h"
#include "libcpc/src/pctx_proc.h"
#include "libcpc/src/pctx_ptrace.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace pctx {

namespace {

const char kFn[] = "capture";

// Seizes and interrupts every thread: 0 or errno.
int seize_all(pctx_t *p) {
    for (;;) {
        bool fresh = false;
        for (pid_t tid : proc::tasks(p->pid)) {
            if (p->tasks.count(tid) || proc::status(tid).state == 'Z')
                continue; // known, or a leader that ended before the others
            int e = seize(tid, false);
            if (e == ESRCH)
                continue; // ended meanwhile
            if (e == EPERM && proc::status(tid).tracer == p->tracer_tid)
                e = 0; // attached already, as a new thread of a seized one
            else if (e == 0)
                ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
            if (e != 0)
                return e;
            p->tasks[tid];
            fresh = true;
        }
        if (!fresh)
            return p->tasks.empty() ? ESRCH : 0;
    }
}

// A child process created while capturing is not followed.
void let_child_go(pctx_t *p, pid_t child) {
    int status;
    if (first_stop(p, child, &status))
        ptrace(PTRACE_DETACH, child, nullptr, nullptr);
}

// Takes one stop from every thread: false when the process ended.
bool collect_stops(pctx_t *p) {
    std::vector<pid_t> pending;
    for (const auto &kv : p->tasks)
        pending.push_back(kv.first);
    while (!pending.empty()) {
        pid_t tid = pending.back();
        pending.pop_back();
        auto known = p->tasks.find(tid);
        if (known == p->tasks.end() || known->second.stopped)
            continue; // gone, or its stop is taken (listed twice)
        int status;
        if (!wait_task(tid, &status) || decode(status).kind == Stop::dead) {
            p->tasks.erase(tid);
            if (tid == p->pid)
                return false;
            continue;
        }
        Stop s = decode(status);
        Task &t = p->tasks[tid];
        t.stopped = true;
        if (s.kind == Stop::group_stop) {
            t.group_stop = true;
        } else if (s.kind == Stop::signal) {
            t.resume_sig = s.sig;
        } else if (s.kind == Stop::event_stop) {
            pid_t other = static_cast<pid_t>(event_msg(tid));
            if (s.event == PTRACE_EVENT_CLONE && proc::status(other).tgid == p->pid) {
                p->tasks[other];
                pending.push_back(other);
            } else if (s.event == PTRACE_EVENT_CLONE || s.event == PTRACE_EVENT_FORK ||
                       s.event == PTRACE_EVENT_VFORK) {
                let_child_go(p, other);
            } else if (s.event == PTRACE_EVENT_EXIT) {
                t.exiting = t.finished = true; // ending: not an LWP to report
            } else if (s.event == PTRACE_EVENT_EXEC && other != tid) {
                p->tasks.erase(other);
            }
        }
    }
    return true;
}

pctx_t *refuse(pctx_errfn_t *errfn, int err, const char *fmt, pid_t pid) {
    report_to(errfn, kFn, fmt, static_cast<int>(pid));
    errno = err;
    return nullptr;
}

} // namespace

} // namespace pctx

using namespace pctx;

extern "C" pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn) {
    if (pid <= 0)
        return refuse(errfn, ESRCH, "pid %d doesn't exist\n", pid);
    if (pid == getpid())
        return refuse(errfn, EINVAL, "cannot capture self!\n", pid);
    proc::Status st = proc::status(pid);
    if (!st.ok)
        return refuse(errfn, ESRCH, "pid %d doesn't exist\n", pid);
    if (st.tgid != pid)
        return refuse(errfn, ESRCH, "pid %d is a thread, not a process\n", pid);
    // A main thread that ended before the others shows Z too.
    if ((st.state == 'Z' || st.state == 'X') && st.threads <= 1)
        return refuse(errfn, ESRCH, "pid %d is a zombie\n", pid);
    if (st.kthread)
        return refuse(errfn, EPERM, "pid %d is a system process\n", pid);
    if (st.tracer != 0)
        return refuse(errfn, EBUSY, "pid %d is already being traced\n", pid);
    int err = 0;
    if (const char *why = capture_refusal(st, &err))
        return refuse(errfn, err, why, pid);

    pctx_t *p = new_handle(arg, verbose, errfn);
    if (p == nullptr)
        return nullptr;
    p->pid = pid;
    int e = seize_all(p);
    if (e == 0 && !collect_stops(p))
        e = ESRCH;
    if (e != 0) {
        let_go(p);
        free_handle(p);
        if (e == EPERM || e == EACCES)
            return refuse(errfn, EACCES, "pid %d: permission denied\n", pid);
        if (e == ESRCH)
            return refuse(errfn, ESRCH, "pid %d doesn't exist\n", pid);
        report_to(errfn, kFn, "%s: pid %d\n", std::strerror(e), static_cast<int>(pid));
        errno = e;
        return nullptr;
    }
    return p;
}
