// SPDX-License-Identifier: MIT
// Signal context: everything here may run in the overflow handler.  Loads,
// compare-and-swap and a ring's attach only; no lock, no allocation.
//
// The handler's way to its data: the process's State, and the calling
// thread's slot, claimed on first use (a thread that the program started
// before the agent's set-up, or whose set-up found no slot free).
#include "profiler/agent/slots.h"
#include "profiler/agent/state.h"

#include "base/clock.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace cpcprof::agent {

namespace {

constinit State g_state;
constinit __attribute__((tls_model("initial-exec"))) thread_local Slot *tls_slot = nullptr;

} // namespace

Slot *SlotTable::claim(pid_t tid) {
    int cap = capacity();
    for (int i = 0; i < cap; ++i) {
        Slot &s = (*this)[i];
        if (i >= bound_.load(std::memory_order_acquire)) {
            // A slot never claimed: raise the bound first, so that a loop
            // that reads the bound after this slot's tid sees it.
            int b = bound_.load(std::memory_order_relaxed);
            while (b <= i && !bound_.compare_exchange_weak(b, i + 1))
                ;
        }
        pid_t expected = 0;
        if (s.tid.load(std::memory_order_relaxed) == 0 &&
            s.tid.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) {
            // Its samples are published (release) after this, in this
            // thread; the drain thread reads the ring's memory only then.
            s.ring.attach(rings_[i / kChunkSlots] + size_t(i % kChunkSlots) * ring_bytes_,
                          ring_bytes_);
            return &s;
        }
    }
    return nullptr;
}

State &state() {
    return g_state;
}

Slot *current_slot() {
    if (tls_slot != nullptr)
        return tls_slot;
    tls_slot = g_state.slots.claim(base::current_tid());
    return tls_slot;
}

Slot *claimed_slot() {
    return tls_slot;
}

void forget_current_slot() {
    tls_slot = nullptr;
}

int slot_bound() {
    return g_state.slots.bound();
}

} // namespace cpcprof::agent
