// SPDX-License-Identifier: MIT
#include "libcpc/src/thread_state.h"

#include "libcpc/src/impl.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace cpc {

namespace {

// initial-exec: the overflow handler reads it, and a lazily allocated TLS
// block (the default for a shared library) may call malloc on first use.
__attribute__((tls_model("initial-exec"))) thread_local Counting *tls_counting = nullptr;

pthread_key_t g_key;
std::once_flag g_once;
std::atomic<pid_t> g_pid{0};

// Registry of live countings and open handles.  Taken around fork() so
// that the child finds it consistent; never taken in signal context.
std::mutex g_registry_lock;
std::vector<Counting *> g_countings;
std::vector<cpc_t *> g_handles;

void destroy_at_thread_exit(void *p) {
    tls_counting = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    delete static_cast<Counting *>(p);
}

// Lock order: registry, then each handle's lock (nothing takes the
// registry while holding a handle's lock).
void before_fork() {
    g_registry_lock.lock();
    for (cpc_t *h : g_handles)
        h->lock.lock();
}

void after_fork_parent() {
    for (cpc_t *h : g_handles)
        h->lock.unlock();
    g_registry_lock.unlock();
}

// illumos: fork children do not inherit bound sets.  The descriptors the
// child holds refer to the parent's counters, so they are closed without
// any ioctl (which would stop the parent's counting).  The abandoned
// objects are left allocated: destroying them would retake the registry.
// Sets bound through libpctx are abandoned too: a fork child of the
// controlling process (libpctx makes one to follow a fork child of the
// target) traces nothing of its parent's.
void after_fork_child() {
    g_pid.store(getpid(), std::memory_order_relaxed);
    tls_counting = nullptr;
    pthread_setspecific(g_key, nullptr);
    for (Counting *c : g_countings)
        c->abandon();
    for (cpc_t *h : g_handles) {
        for (auto &s : h->sets) {
            if (s->binding == Binding::pctx)
                abandon_pctx(s.get());
            s->binding = Binding::none;
            (void)s->cpu_counting.release();
        }
        h->lock.unlock();
    }
    g_registry_lock.unlock();
}

} // namespace

void init_thread_state() {
    std::call_once(g_once, [] {
        pthread_key_create(&g_key, destroy_at_thread_exit);
        g_pid.store(getpid(), std::memory_order_relaxed);
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    });
}

pid_t cached_pid() {
    return g_pid.load(std::memory_order_relaxed);
}

Counting *current_counting() {
    return tls_counting;
}

void set_current_counting(std::unique_ptr<Counting> c) {
    init_thread_state();
    Counting *old = tls_counting;
    tls_counting = nullptr;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    delete old;
    tls_counting = c.get();
    pthread_setspecific(g_key, c.release());
}

void clear_current_counting() {
    set_current_counting(nullptr);
}

void track_counting(Counting *c) {
    std::lock_guard<std::mutex> g(g_registry_lock);
    g_countings.push_back(c);
}

void untrack_counting(Counting *c) {
    std::lock_guard<std::mutex> g(g_registry_lock);
    g_countings.erase(std::remove(g_countings.begin(), g_countings.end(), c), g_countings.end());
}

void register_handle(cpc_t *cpc) {
    init_thread_state();
    std::lock_guard<std::mutex> g(g_registry_lock);
    g_handles.push_back(cpc);
}

cpc_errhndlr_t *error_handler_of(cpc_t *cpc) {
    std::lock_guard<std::mutex> g(g_registry_lock);
    if (std::find(g_handles.begin(), g_handles.end(), cpc) == g_handles.end())
        return nullptr;
    return cpc->errfn.load(std::memory_order_acquire);
}

void unregister_handle(cpc_t *cpc) {
    std::lock_guard<std::mutex> g(g_registry_lock);
    g_handles.erase(std::remove(g_handles.begin(), g_handles.end(), cpc), g_handles.end());
}

} // namespace cpc
