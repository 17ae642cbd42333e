// SPDX-License-Identifier: MIT
// A thread's set-up for sampling (ordinary context): its slot, stack
// bounds and name, and its ring's pages faulted in, before its first
// sample where possible (the main thread at start, the others in the
// start routine wrapper, threads.cpp).
#include "profiler/agent/process.h"
#include "profiler/agent/state.h"

#include <pthread.h>
#include <sys/prctl.h>

#include <cstring>

namespace cpcprof::agent {

namespace {

void stack_bounds(Slot *s) {
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
    // Fault the ring's pages in now: a first touch inside the handler
    // costs a page fault (several microseconds on a VM) every few samples.
    s->ring.prefault();
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
