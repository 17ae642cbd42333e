// SPDX-License-Identifier: MIT
// Thread creation: every new thread of the program gets libcpc's copy of
// the set (through libcpc's pthread_create wrapper) when the descriptor
// budget allows it (fds.h) and no seccomp filter forbids it; the others
// start without counters, and are counted with the CPU time they use
// (State::threads_unsampled_no_counters, unsampled_cpu_ns_no_counters).
// Also the thread names the program sets (pthread_setname_np).
#include "profiler/agent/channel.h"
#include "profiler/agent/fds.h"
#include "profiler/agent/process.h"
#include "profiler/agent/seccomp.h"
#include "profiler/agent/state.h"

#include "base/clock.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace cpcprof::agent {

namespace {

// Threads without counters: their CPU time is added up when they end.
pthread_key_t g_unsampled_key;

// Those still running, whose CPU time is not counted yet (ordinary
// context only; a fork child starts with the lock free and itself alone).
std::mutex g_unsampled_lock;
std::vector<pthread_t> g_unsampled_live;

// At the thread's end: its CPU time, unless the process's end counted it.
void add_unsampled_cpu(void *) {
    std::lock_guard<std::mutex> g(g_unsampled_lock);
    auto it = std::find_if(g_unsampled_live.begin(), g_unsampled_live.end(),
                           [](pthread_t t) { return pthread_equal(t, pthread_self()); });
    if (it == g_unsampled_live.end())
        return;
    g_unsampled_live.erase(it);
    state().unsampled_cpu_ns_no_counters.fetch_add(uint64_t(base::thread_cpu_ns()),
                                                   std::memory_order_relaxed);
}

// The process ends or execs: the CPU time of those still running so far.
void add_running_unsampled_cpu() {
    std::lock_guard<std::mutex> g(g_unsampled_lock);
    for (pthread_t t : g_unsampled_live) {
        clockid_t clock;
        if (pthread_getcpuclockid(t, &clock) == 0)
            state().unsampled_cpu_ns_no_counters.fetch_add(uint64_t(base::clock_ns(clock)),
                                                           std::memory_order_relaxed);
    }
    g_unsampled_live.clear();
}

// The drain thread is being started (a fork child's): it is not the
// program's, takes no slot and no descriptor budget.
thread_local bool tls_starting_drain = false;

// The thread has no counters (libcpc said so before its start routine).
thread_local bool tls_no_counters = false;

using create_fn = int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct Start {
    void *(*fn)(void *);
    void *arg;
    bool sampled; // started through libcpc's wrapper, with counters
};

void count_unsampled_thread() {
    state().threads_unsampled_no_counters.fetch_add(1, std::memory_order_relaxed);
    {
        std::lock_guard<std::mutex> g(g_unsampled_lock);
        g_unsampled_live.push_back(pthread_self());
    }
    pthread_setspecific(g_unsampled_key, &g_unsampled_key); // any non-null value
}

void *thread_start(void *p) {
    Start st = *static_cast<Start *>(p);
    delete static_cast<Start *>(p);
    if (tls_no_counters || !st.sampled) {
        tls_no_counters = true;   // and neither do the threads it starts
        count_unsampled_thread(); // takes no slot
    } else {
        prepare_thread();
    }
    struct AtEnd { // also on pthread_exit (a forced unwind)
        ~AtEnd() { deliver_pending_overflows(); }
    } at_end;
    return st.fn(st.arg);
}

// libc's pthread_create, for threads that must not get libcpc's copy of
// the set (no descriptor left for it, or a seccomp filter).
create_fn libc_pthread_create() {
    static std::atomic<create_fn> fn{nullptr};
    return cpcprof::base::computed_once(fn, create_fn{nullptr}, [] {
        void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
        void *f = h != nullptr ? dlsym(h, "pthread_create") : nullptr;
        return reinterpret_cast<create_fn>(f);
    });
}

create_fn libcpc_pthread_create() {
    // libcpc's wrapper gives new threads their copy of the set.  This
    // preloaded library comes before it in symbol lookup, so call it
    // explicitly.
    static std::atomic<create_fn> fn{nullptr};
    return cpcprof::base::computed_once(fn, create_fn{nullptr}, [] {
        void *h = dlopen("libcpc.so.1", RTLD_NOW | RTLD_NOLOAD);
        void *f = h ? dlsym(h, "pthread_create") : nullptr;
        return reinterpret_cast<create_fn>(f ? f : dlsym(RTLD_NEXT, "pthread_create"));
    });
}

} // namespace

void init_thread_accounting() {
    pthread_key_create(&g_unsampled_key, add_unsampled_cpu);
}

void no_counters_in_this_thread(const char *msg) {
    // In the new thread, before its start routine (thread_start): it goes
    // unsampled and counted; the recorder prints the first reason, the
    // program's stderr gets nothing.
    tls_no_counters = true;
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
        send_error(std::string("threads go unsampled: ") + msg);
}

void set_starting_drain(bool on) {
    tls_starting_drain = on;
}

void forget_unsampled_after_fork() {
    new (&g_unsampled_lock) std::mutex;
    std::erase_if(g_unsampled_live, [](pthread_t t) { return !pthread_equal(t, pthread_self()); });
}

// What the process could not sample, said once at its end.
void report_unsampled_threads() {
    uint64_t n = state().threads_unsampled_no_counters.load();
    if (n == 0)
        return;
    add_running_unsampled_cpu();
    char text[256];
    std::snprintf(text, sizeof text,
                  "%llu thread%s ran without counters (no descriptor left for them, or the "
                  "kernel refused them): %.1f ms of their CPU time is not sampled",
                  static_cast<unsigned long long>(n), n == 1 ? "" : "s",
                  double(state().unsampled_cpu_ns_no_counters.load()) / 1e6);
    send_error(text);
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

// libcpc accepts this interposer: it forwards to libcpc's pthread_create.
extern "C" __attribute__((visibility("default"))) const int __cpc_pthread_create_forwarder = 1;

extern "C" __attribute__((visibility("default"))) int
pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    create_fn real = libcpc_pthread_create();
    if (!sampling() || tls_starting_drain)
        return real(t, attr, fn, arg);
    // One counter descriptor per thread, within the budget (fds.h), on
    // the perf backend (the timer backend's timers take none); no
    // counters at all once the program runs under a filter of its own.
    bool sampled = !tls_no_counters && !seccomp_known() &&
                   (state().timer_backend || counter_budget_allows(state().cfg.nevents));
    create_fn libc = sampled ? nullptr : libc_pthread_create();
    if (libc != nullptr)
        real = libc;
    else
        sampled = true;
    // No exception may leave this C entry point: without memory for the
    // start record the thread is refused as pthread_create refuses it.
    auto *st = new (std::nothrow) Start{fn, arg, sampled};
    if (st == nullptr)
        return EAGAIN;
    int rc = real(t, attr, thread_start, st);
    if (rc != 0)
        delete st;
    return rc;
}

extern "C" __attribute__((visibility("default"))) int pthread_setname_np(pthread_t t,
                                                                         const char *name) {
    using fn = int (*)(pthread_t, const char *);
    static std::atomic<fn> slot{nullptr};
    fn real = cpcprof::base::computed_once(slot, fn{nullptr}, [] {
        return reinterpret_cast<fn>(dlsym(RTLD_NEXT, "pthread_setname_np"));
    });
    int rc = real != nullptr ? real(t, name) : ENOSYS;
    if (rc == 0)
        note_thread_name(t, name);
    return rc;
}
