// SPDX-License-Identifier: MIT
// The handle: events, error reporting, callbacks, release, and the private
// interface libcpc uses.
#include "libcpc/src/pctx_impl.h"

#include "base/clock.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace pctx {

namespace {

void vreport(pctx_errfn_t *errfn, const char *fn, const char *fmt, va_list ap) {
    int saved = errno;
    if (errfn != nullptr) {
        errfn(fn, fmt, ap);
    } else {
        std::fprintf(stderr, "libpctx: pctx_%s: ", fn);
        std::vfprintf(stderr, fmt, ap);
    }
    errno = saved;
}

// Runs a callback with current_lwp set, restoring the previous value (a
// callback may run pctx_run on another handle).
template <typename F> auto with_current(pctx_t *p, pid_t tid, F f) {
    pid_t before = p->current_lwp;
    p->current_lwp = tid;
    auto r = f();
    p->current_lwp = before;
    return r;
}

} // namespace

pctx_t *new_handle(void *arg, int verbose, pctx_errfn_t *errfn) {
    auto *p = new (std::nothrow) __pctx();
    if (p == nullptr) {
        errno = ENOMEM;
        return nullptr;
    }
    p->uarg = arg;
    p->verbose = verbose;
    p->errfn = errfn;
    p->tracer_pid = getpid();
    p->tracer_tid = cpcprof::base::current_tid();
    return p;
}

void free_handle(pctx_t *p) {
    p->magic = 0;
    delete p;
}

void report(const pctx_t *p, const char *fn, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(p->errfn, fn, fmt, ap);
    va_end(ap);
}

void report_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(errfn, fn, fmt, ap);
    va_end(ap);
}

bool is_tracer(const pctx_t *p) {
    return p->tracer_pid == getpid();
}

bool is_tracer_thread(const pctx_t *p) {
    return is_tracer(p) && p->tracer_tid == cpcprof::base::current_tid();
}

void notify_gone(pctx_t *p, pid_t lwpid) {
    // An observer may unregister itself (or another) while being told.
    std::vector<Observer> copy = p->observers;
    for (const Observer &o : copy) {
        bool still = std::any_of(p->observers.begin(), p->observers.end(), [&](const Observer &x) {
            return x.fn == o.fn && x.cookie == o.cookie;
        });
        if (still)
            o.fn(o.cookie, p, lwpid);
    }
}

int call_init_lwp(pctx_t *p, pid_t tid) {
    if (p->init_lwp == nullptr)
        return 0;
    return with_current(p, tid, [&] { return p->init_lwp(p, p->pid, tid, p->uarg); });
}

int call_fini_lwp(pctx_t *p, pid_t tid) {
    if (p->fini_lwp == nullptr)
        return 0;
    return with_current(p, tid, [&] { return p->fini_lwp(p, p->pid, tid, p->uarg); });
}

int call_lwp_create(pctx_t *p, pid_t tid) {
    if (p->lwp_create == nullptr)
        return 0;
    return with_current(p, tid, [&] { return p->lwp_create(p, p->pid, tid, p->uarg); });
}

int call_lwp_exit(pctx_t *p, pid_t tid) {
    if (p->lwp_exit == nullptr)
        return 0;
    return with_current(p, tid, [&] { return p->lwp_exit(p, p->pid, tid, p->uarg); });
}

int call_exec(pctx_t *p, pid_t tid, char *name) {
    if (p->exec == nullptr)
        return 0;
    return with_current(p, tid, [&] { return p->exec(p, p->pid, tid, name, p->uarg); });
}

void call_exit(pctx_t *p, pid_t tid, int status) {
    if (p->exit == nullptr)
        return;
    with_current(p, tid, [&] {
        p->exit(p, p->pid, tid, status, p->uarg);
        return 0;
    });
}

int call_tick(pctx_t *p, int (*tick)(pctx_t *, pid_t, id_t, void *), pid_t tid) {
    if (tick == nullptr)
        return 0;
    return with_current(p, tid, [&] { return tick(p, p->pid, tid, p->uarg); });
}

} // namespace pctx

using namespace pctx;

extern "C" {

int pctx_set_events(pctx_t *p, ...) {
    static const char fn[] = "set_events";
    if (!valid(p)) {
        errno = EINVAL;
        return -1;
    }
    va_list ap;
    va_start(ap, p);
    int error = 0;
    for (;;) {
        int event = va_arg(ap, int);
        if (event == PCTX_NULL_EVENT)
            break;
        switch (event) {
        case PCTX_SYSC_EXEC_EVENT:
            p->exec = va_arg(ap, pctx_sysc_execfn_t *);
            break;
        case PCTX_SYSC_FORK_EVENT:
            p->fork = va_arg(ap, pctx_sysc_forkfn_t *);
            break;
        case PCTX_SYSC_EXIT_EVENT:
            p->exit = va_arg(ap, pctx_sysc_exitfn_t *);
            break;
        case PCTX_SYSC_LWP_CREATE_EVENT:
            p->lwp_create = va_arg(ap, pctx_sysc_lwp_createfn_t *);
            break;
        case PCTX_INIT_LWP_EVENT:
            p->init_lwp = va_arg(ap, pctx_init_lwpfn_t *);
            break;
        case PCTX_FINI_LWP_EVENT:
            p->fini_lwp = va_arg(ap, pctx_fini_lwpfn_t *);
            break;
        case PCTX_SYSC_LWP_EXIT_EVENT:
            p->lwp_exit = va_arg(ap, pctx_sysc_lwp_exitfn_t *);
            break;
        default:
            report(p, fn, "unknown event type %x\n", static_cast<unsigned>(event));
            error = -1;
            break;
        }
        if (error != 0)
            break;
    }
    va_end(ap);
    if (error != 0)
        errno = EINVAL;
    return error;
}

void pctx_terminate(pctx_t *p) {
    if (valid(p))
        p->terminate.store(true, std::memory_order_relaxed);
}

void pctx_release(pctx_t *p) {
    if (!valid(p))
        return;
    if (p->in_run) {
        report(p, "release", "cannot release pid %d from a callback of pctx_run\n", p->pid);
        return;
    }
    if (is_tracer(p) && !is_tracer_thread(p) && p->phase < Phase::let_go) {
        // Only the tracing thread can detach: the process stays stopped
        // until that thread calls pctx_release or exits.
        report(p, "release", "pid %d is traced by thread %d: release it from there\n", p->pid,
               p->tracer_tid);
        return;
    }
    let_go(p);
    notify_gone(p, 0);
    free_handle(p);
}

int __pctx_observe(pctx_t *p, __pctx_lwp_gone_fn *fn, void *cookie) {
    if (!valid(p) || fn == nullptr) {
        errno = EINVAL;
        return -1;
    }
    bool known = std::any_of(p->observers.begin(), p->observers.end(),
                             [&](const Observer &o) { return o.fn == fn && o.cookie == cookie; });
    if (!known)
        p->observers.push_back({fn, cookie});
    return 0;
}

void __pctx_unobserve(pctx_t *p, __pctx_lwp_gone_fn *fn, void *cookie) {
    if (!valid(p))
        return;
    auto &v = p->observers;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const Observer &o) { return o.fn == fn && o.cookie == cookie; }),
            v.end());
}

pid_t __pctx_current_lwp(const pctx_t *p) {
    return valid(p) ? p->current_lwp : 0;
}

int __pctx_lwp_check(const pctx_t *p, pid_t lwpid) {
    if (!valid(p))
        return EINVAL;
    if (p->phase == Phase::let_go || p->phase == Phase::ended)
        return ESRCH;
    return p->tasks.count(lwpid) != 0 ? 0 : ESRCH;
}

pid_t __pctx_pid(const pctx_t *p) {
    return valid(p) ? p->pid : 0;
}

} // extern "C"
