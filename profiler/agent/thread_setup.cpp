// SPDX-License-Identifier: MIT
// A thread's set-up for sampling (ordinary context): its slot, stack
// bounds and name (the main thread at start, the others in the start
// routine wrapper, threads.cpp).
#include "profiler/agent/process.h"
#include "profiler/agent/state.h"

#include <pthread.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

namespace cpcprof::agent {

namespace {

// The process's first stack without pthread_getattr_np, which reads
// /proc/self/maps to find it (80-100 us at every process's start): the
// kernel copies the program's file name (AT_EXECFN) to the top of that
// stack, so the stack ends with the page that holds the name, and it
// reaches at most the stack limit below.  false when the thread does not
// run there (a fork child of another thread) or the limit is unlimited.
bool first_stack_bounds(Slot *s) {
    const auto *name = reinterpret_cast<const char *>(getauxval(AT_EXECFN));
    rlimit limit{};
    if (name == nullptr || getrlimit(RLIMIT_STACK, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return false;
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    uintptr_t hi = (reinterpret_cast<uintptr_t>(name) + std::strlen(name) + page) & ~(page - 1);
    auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    if (sp >= hi || hi - sp > limit.rlim_cur)
        return false;
    s->stack_lo = hi - limit.rlim_cur;
    s->stack_hi = hi;
    return true;
}

void stack_bounds(Slot *s) {
    if (first_stack_bounds(s))
        return;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    void *addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        s->stack_lo = reinterpret_cast<uintptr_t>(addr);
        s->stack_hi = s->stack_lo + size;
    }
    pthread_attr_destroy(&attr);
}

} // namespace

void prepare_thread() {
    // Every slot taken: one more chunk, then claim again.  Threads that
    // start together all find the table full at once; the first grows it
    // and the others claim from that chunk instead of adding one each
    // (which used the table's bound up and left late threads slotless).
    Slot *s = nullptr;
    for (;;) {
        const int seen = state().slots.capacity();
        s = current_slot();
        if (s != nullptr || !state().slots.grow(seen))
            break;
    }
    if (s == nullptr)
        return;
    stack_bounds(s);
    s->thread = pthread_self();
    char name[16] = {};
    prctl(PR_GET_NAME, name);
    std::memcpy(s->name, name, sizeof s->name);
    s->pages_pending.store(true, std::memory_order_relaxed);
    s->ready.store(true, std::memory_order_release);
}

void note_thread_name(pthread_t t, const char *name) {
    if (name == nullptr)
        return;
    State &st = state();
    Slot *slot = pthread_equal(t, pthread_self()) ? claimed_slot() : nullptr;
    for (int i = 0; slot == nullptr && i < slot_bound(); ++i)
        if (st.slots[i].tid.load(std::memory_order_acquire) != 0 &&
            pthread_equal(st.slots[i].thread, t))
            slot = &st.slots[i];
    if (slot != nullptr)
        std::strncpy(slot->name, name, sizeof slot->name - 1);
}

} // namespace cpcprof::agent
