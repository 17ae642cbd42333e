// SPDX-License-Identifier: MIT
#include "libcpc/src/pctx_ptrace.h"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>

namespace pctx {

Stop decode(int status) {
    Stop s;
    if (!WIFSTOPPED(status)) {
        s.kind = Stop::dead;
        return s;
    }
    s.sig = WSTOPSIG(status);
    s.event = status >> 16;
    if (s.event == PTRACE_EVENT_STOP) {
        bool stopping =
            s.sig == SIGSTOP || s.sig == SIGTSTP || s.sig == SIGTTIN || s.sig == SIGTTOU;
        s.kind = stopping ? Stop::group_stop : Stop::trap;
    } else if (s.event != 0) {
        s.kind = Stop::event_stop;
    } else {
        s.kind = Stop::signal;
    }
    return s;
}

int seize(pid_t tid, bool exitkill) {
    unsigned long opts = kTraceOptions | (exitkill ? PTRACE_O_EXITKILL : 0);
    if (ptrace(PTRACE_SEIZE, tid, nullptr, opts) != 0)
        return errno;
    return 0;
}

bool wait_task(pid_t tid, int *status) {
    for (;;) {
        pid_t r = waitpid(tid, status, __WALL);
        if (r == tid)
            return true;
        if (r < 0 && errno == EINTR)
            continue;
        return false;
    }
}

void resume(pid_t tid, Task &t) {
    if (t.group_stop)
        ptrace(PTRACE_LISTEN, tid, nullptr, nullptr);
    else
        ptrace(PTRACE_CONT, tid, nullptr, reinterpret_cast<void *>(uintptr_t(t.resume_sig)));
    t.stopped = false;
    t.group_stop = false;
    t.resume_sig = 0;
}

unsigned long event_msg(pid_t tid) {
    unsigned long msg = 0;
    ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &msg);
    return msg;
}

bool first_stop(pctx_t *p, pid_t tid, int *status) {
    auto it = p->early.find(tid);
    if (it != p->early.end()) {
        *status = it->second;
        p->early.erase(it);
    } else if (!wait_task(tid, status)) {
        return false;
    }
    return decode(*status).kind != Stop::dead;
}

} // namespace pctx
