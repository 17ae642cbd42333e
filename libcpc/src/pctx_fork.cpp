// SPDX-License-Identifier: MIT
// Fork children of the controlled process.
//
// illumos libpctx follows a fork child when there is a fork callback: the
// controlling process forks too, and its child takes control of the new
// process, calls the fork callback with a handle on it (cputrack -f runs
// pctx_run there), releases it and exits.  So one controlling process
// serves one controlled process, and each has its own copy of the
// program's state.  libpctx does the same: the new process is parked (see
// pctx_park.h), detached, and seized by a new controlling process, forked
// twice so that it is nobody's zombie.  The old controller waits until the
// new one holds the child (a byte through a pipe), and takes it back and
// lets it run if the new one failed.
//
// Without a fork callback the child is not followed: it is let go at its
// first stop and runs untraced.
#include "libcpc/src/pctx_park.h"
#include "libcpc/src/pctx_ptrace.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pctx {

namespace {

const char kFn[] = "run";

bool read_byte(int fd) {
    char c;
    for (;;) {
        ssize_t n = read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        return n == 1;
    }
}

// The new controlling process: child is parked and detached.
[[noreturn]] void control_child(pctx_t *p, pid_t forker, pid_t child, const Parked &parked,
                                int gate) {
    pctx_t *c = new_handle(p->uarg, p->verbose, p->errfn);
    int status = 0;
    bool ok = c != nullptr && seize(child, false) == 0;
    ok = ok && ptrace(PTRACE_INTERRUPT, child, nullptr, nullptr) == 0 &&
         wait_task(child, &status) && decode(status).kind != Stop::dead;
    if (ok && unpark(child, parked) != 0) {
        ptrace(PTRACE_DETACH, child, nullptr, nullptr);
        ok = false;
    }
    if (!ok)
        _exit(1);   // no byte: the old controller takes the child back
    if (p->created) // illumos: kill-on-last-close for every descendant
        ptrace(PTRACE_SETOPTIONS, child, nullptr, kTraceOptions | PTRACE_O_EXITKILL);
    c->pid = child;
    c->created = p->created;
    Task &t = c->tasks[child];
    t.stopped = true;
    t.group_stop = decode(status).kind == Stop::group_stop;
    ssize_t n = write(gate, "1", 1);
    (void)n;
    close(gate);
    p->fork(c, p->pid, child, forker, p->uarg);
    pctx_release(c);
    std::fflush(nullptr);
    _exit(0);
}

// The new controller failed: the child is taken back, unparked and let go.
void take_back(pctx_t *p, pid_t child, const Parked &parked) {
    int status;
    if (seize(child, false) != 0)
        return; // gone
    if (ptrace(PTRACE_INTERRUPT, child, nullptr, nullptr) != 0 || !wait_task(child, &status) ||
        decode(status).kind == Stop::dead)
        return;
    unpark(child, parked);
    ptrace(PTRACE_DETACH, child, nullptr, nullptr);
    report(p, kFn, "cannot follow pid %d: no controlling process for it\n", child);
}

void follow(pctx_t *p, pid_t forker, pid_t child) {
    Parked parked;
    if (int e = park(child, &parked)) {
        report(p, kFn, "cannot follow pid %d: %s\n", child, std::strerror(e));
        ptrace(PTRACE_DETACH, child, nullptr, nullptr);
        return;
    }
    ptrace(PTRACE_DETACH, child, nullptr, nullptr);
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) {
        take_back(p, child, parked);
        return;
    }
    std::fflush(nullptr); // nothing buffered is written twice
    pid_t mid = fork();
    if (mid == 0) {
        close(gate[0]);
        pid_t ctl = fork();
        if (ctl != 0)
            _exit(ctl < 0 ? 1 : 0);
        control_child(p, forker, child, parked, gate[1]);
    }
    close(gate[1]);
    bool ok = false;
    if (mid > 0) {
        int st;
        while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
        }
        ok = read_byte(gate[0]);
    }
    close(gate[0]);
    if (!ok)
        take_back(p, child, parked);
}

} // namespace

void on_fork(pctx_t *p, pid_t tid, pid_t child) {
    int status;
    if (!first_stop(p, child, &status))
        return;
    Stop s = decode(status);
    if (p->fork == nullptr || s.kind != Stop::trap) {
        // Not followed.  (A child whose first report is a signal is let go
        // with it: it cannot be parked from there.)
        int sig = s.kind == Stop::signal ? s.sig : 0;
        ptrace(PTRACE_DETACH, child, nullptr, reinterpret_cast<void *>(uintptr_t(sig)));
        if (p->fork != nullptr)
            report(p, kFn, "cannot follow pid %d: it stopped for signal %d\n", child, sig);
        return;
    }
    follow(p, tid, child);
}

} // namespace pctx
