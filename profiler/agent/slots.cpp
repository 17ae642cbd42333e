// SPDX-License-Identifier: MIT
// The slot table's chunks (ordinary context).  SlotTable::claim, which the
// overflow handler runs, is slot_claim.cpp.
#include "profiler/agent/slots.h"

#include <sys/mman.h>

#include <new>

namespace cpcprof::agent {

bool SlotTable::init(size_t ring_bytes, cpc_t *cpc, cpc_set_t *set, bool bufs) {
    ring_bytes_ = ring_bytes;
    cpc_ = cpc;
    set_ = set;
    bufs_ = bufs;
    return grow(0);
}

bool SlotTable::grow(int seen) {
    std::lock_guard<std::mutex> g(grow_lock_);
    return capacity() > seen || add_chunk();
}

bool SlotTable::add_chunk() {
    int n = chunks_.load(std::memory_order_relaxed);
    if (n >= kMaxChunks)
        return false;
    // Reserved, not committed: a ring's pages are touched when a thread
    // takes the slot (Ring::prefault) or writes into it.
    size_t ring_total = ring_bytes_ * kChunkSlots;
    void *rings = mmap(nullptr, ring_total, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (rings == MAP_FAILED)
        return false;
    void *mem = mmap(nullptr, sizeof(Slot) * kChunkSlots, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        munmap(rings, ring_total);
        return false;
    }
    auto *slots = static_cast<Slot *>(mem); // zero bytes: free slots
    if (bufs_) {
        for (int i = 0; i < kChunkSlots; ++i) {
            slots[i].buf = cpc_buf_create(cpc_, set_);
            if (slots[i].buf == nullptr) {
                munmap(mem, sizeof(Slot) * kChunkSlots); // libcpc frees its bufs at close
                munmap(rings, ring_total);
                return false;
            }
        }
    }
    chunk_[n] = slots;
    rings_[n] = static_cast<char *>(rings);
    chunks_.store(n + 1, std::memory_order_release);
    return true;
}

void SlotTable::after_fork() {
    new (&grow_lock_) std::mutex;
}

} // namespace cpcprof::agent
