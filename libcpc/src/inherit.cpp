// SPDX-License-Identifier: MIT
// CPC_BIND_LWP_INHERIT: threads created by a thread whose set was bound
// with the flag get their own copy of the set.
//
// perf's own inherit flag folds a child's counts into the parent's event,
// so a new thread could not read its own counters with cpc_set_sample.
// libcpc therefore wraps pthread_create: the new thread opens its own group
// before its start routine runs.  Threads made with a raw clone(2) are not
// seen (documented in libcpc(3CPC)).
#include "libcpc/src/inherit.h"
#include "libcpc/src/counting.h"
#include "libcpc/src/overflow.h"
#include "libcpc/src/thread_state.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

namespace cpc {

namespace {

using create_fn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct InheritStart {
    void *(*start)(void *);
    void *arg;
    BindSpec spec;
};

void call_handler(cpc_errhndlr_t *h, const char *fn, int subcode, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    h(fn, subcode, fmt, ap);
    va_end(ap);
}

// A new thread could not open its copy of the set (EMFILE, a seccomp
// filter's EPERM, ...): the binding handle's error handler hears of it, in
// the new thread, before the thread's start routine runs.  Only a handle
// without one (or one closed meanwhile) has it written to stderr, as
// report() does: a program that set a handler (cpcprof's agent does) keeps
// its stderr to itself.
void report_no_counting(const BindSpec &spec, int sys_errno) {
    int saved = errno;
    if (cpc_errhndlr_t *h = error_handler_of(spec.cpc))
        call_handler(h, "pthread_create", CPC_RESOURCE_UNAVAIL,
                     "cannot count in the new thread: %s", std::strerror(sys_errno));
    else
        std::fprintf(stderr, "libcpc: pthread_create: cannot count in the new thread: %s\n",
                     std::strerror(sys_errno));
    errno = saved;
}

void *inherit_trampoline(void *p) {
    std::unique_ptr<InheritStart> s(static_cast<InheritStart *>(p));
    OpenError err;
    std::unique_ptr<Counting> c = Counting::open(s->spec, 0, -1, &err);
    if (c == nullptr) {
        report_no_counting(s->spec, err.sys_errno);
    } else {
        Counting *raw = c.get();
        set_current_counting(std::move(c));
        bool notify =
            std::find(s->spec.notify.begin(), s->spec.notify.end(), true) != s->spec.notify.end();
        if (notify) {
            // cpc_bind_curlwp(3CPC): the new LWP receives SIGEMT at once,
            // its overflow counters reading UINT64_MAX, and stays frozen
            // until it calls cpc_set_restart.
            raw->freeze_at_overflow();
            raise_sigemt(raw->tid(), reinterpret_cast<void *>(s->start));
        } else {
            raw->start();
        }
    }
    void *(*start)(void *) = s->start;
    void *arg = s->arg;
    s.reset();
    return start(arg);
}

// The next pthread_create after libcpc's.  RTLD_NEXT follows load order:
// when libcpc is loaded after libc (as a dependency of an LD_PRELOAD
// library, for example) nothing follows it, and libc's is the one.
create_fn real_pthread_create() {
    static std::atomic<create_fn> slot{nullptr};
    create_fn fn = cpcprof::base::computed_once(slot, create_fn{nullptr}, [] {
        void *f = dlsym(RTLD_NEXT, "pthread_create");
        if (f == nullptr) {
            void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
            f = libc != nullptr ? dlsym(libc, "pthread_create") : nullptr;
        }
        return reinterpret_cast<create_fn>(f);
    });
    return fn;
}

} // namespace

const char *pthread_create_interposer() {
    void *global = dlsym(RTLD_DEFAULT, "pthread_create");
    Dl_info theirs, ours;
    if (global == nullptr || dladdr(global, &theirs) == 0 ||
        dladdr(reinterpret_cast<void *>(&inherit_trampoline), &ours) == 0)
        return nullptr;
    if (theirs.dli_fbase == ours.dli_fbase)
        return nullptr;
    // An interposer that forwards to libcpc's wrapper says so with this
    // symbol (cpcprof's agent does).
    if (theirs.dli_fname != nullptr) {
        void *h = dlopen(theirs.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        bool forwards = h != nullptr && dlsym(h, "__cpc_pthread_create_forwarder") != nullptr;
        if (h != nullptr)
            dlclose(h);
        if (forwards)
            return nullptr;
    }
    return theirs.dli_fname != nullptr ? theirs.dli_fname : "another library";
}

} // namespace cpc

extern "C" __attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    using namespace cpc;
    create_fn real = real_pthread_create();
    Counting *c = current_counting();
    if (c == nullptr || !c->spec().inherit)
        return real(thread, attr, start, arg);
    // No exception may leave this C entry point: without memory for the
    // start record the thread is refused as pthread_create refuses it.
    auto *s = new (std::nothrow) InheritStart{start, arg, c->inherited_spec()};
    if (s == nullptr)
        return EAGAIN;
    int rc = real(thread, attr, inherit_trampoline, s);
    if (rc != 0)
        delete s;
    return rc;
}
