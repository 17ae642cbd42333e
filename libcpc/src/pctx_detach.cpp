// SPDX-License-Identifier: MIT
// Letting a process go: every thread is detached from where it stands
// (running ones are interrupted first), a pending signal is delivered, a
// job-control stop is kept, and threads or children created meanwhile are
// let go too.  Counters bound with cpc_bind_pctx keep counting; they go
// with cpc_unbind or pctx_release.
//
// A thread group leader that already exited while other threads run is a
// zombie that cannot be detached: its end is reported to the tracer, which
// releases it when it exits (a limitation of ptrace, pctx_set_events(3CPC)).
#include "libcpc/src/pctx_ptrace.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace pctx {

namespace {

void detach(pid_t tid, const Task &t) {
    ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void *>(uintptr_t(t.resume_sig)));
}

// Takes in a report of tid while letting go; true when tid is done with
// (detached or gone).
bool on_report(pid_t tid, int status, Task &t, std::map<pid_t, Task> &todo) {
    Stop s = decode(status);
    switch (s.kind) {
    case Stop::dead:
        return true;
    case Stop::event_stop:
        if (s.event == PTRACE_EVENT_CLONE || s.event == PTRACE_EVENT_FORK ||
            s.event == PTRACE_EVENT_VFORK) {
            todo.emplace(static_cast<pid_t>(event_msg(tid)), Task{}); // its first stop comes
        } else if (s.event == PTRACE_EVENT_EXEC) {
            pid_t former = static_cast<pid_t>(event_msg(tid));
            if (former != tid)
                todo.erase(former);
        }
        break;
    case Stop::group_stop:
        t.group_stop = true;
        break; // detach keeps the stop
    case Stop::signal:
        t.resume_sig = s.sig;
        break;
    case Stop::trap:
        break;
    }
    detach(tid, t);
    return true;
}

} // namespace

void let_go(pctx_t *p) {
    if (p->phase == Phase::let_go || p->phase == Phase::ended)
        return;
    p->phase = Phase::let_go;
    std::map<pid_t, Task> todo;
    todo.swap(p->tasks);
    std::map<pid_t, int> early;
    early.swap(p->early);
    if (!is_tracer(p))
        return; // a fork child of the controller traces nothing
    for (auto &[tid, status] : early) {
        Task t;
        if (decode(status).kind != Stop::dead)
            on_report(tid, status, t, todo);
    }
    // Stopped threads first: a running one may wait in the kernel for one
    // of them (an exec waits for the other threads to exit).
    for (auto it = todo.begin(); it != todo.end();) {
        bool zombie_leader = it->second.exiting && !it->second.stopped && it->first == p->pid;
        if (it->second.stopped)
            detach(it->first, it->second);
        if (it->second.stopped || zombie_leader) {
            it = todo.erase(it);
        } else {
            ptrace(PTRACE_INTERRUPT, it->first, nullptr, nullptr);
            ++it;
        }
    }
    while (!todo.empty()) {
        bool progress = false;
        for (auto it = todo.begin(); it != todo.end();) {
            int status = 0;
            pid_t r = waitpid(it->first, &status, __WALL | WNOHANG);
            if (r == 0) {
                ++it;
                continue;
            }
            progress = true;
            Task t = it->second;
            pid_t tid = it->first;
            it = todo.erase(it);
            if (r == tid)
                on_report(tid, status, t, todo);
            it = todo.upper_bound(tid); // todo may have changed
        }
        if (!progress)
            usleep(1000);
    }
}

} // namespace pctx
