// The per-thread slots that the overflow handler writes into, in chunks
// that are added as the program starts threads, so that every live thread
// has one however many there are (up to kMaxChunks * kChunkSlots).
//
// A chunk is made in ordinary context (a thread's set-up, before its first
// sample) and published with a release store of the chunk count; the
// handler and the drain thread only read published chunks.  A chunk is
// never freed: slots are reused by later threads.
#pragma once

#include "ring.h"

#include <libcpc.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <sys/types.h>

namespace cpcprof::agent {

// Handler cost histograms: 25 ns buckets up to 20 us, then one overflow.
inline constexpr int kCostBuckets = 801;
inline constexpr uint64_t kCostBucketNs = 25;

struct Slot {
    std::atomic<pid_t> tid{0}; // 0: free
    Ring ring;
    cpc_buf_t *buf = nullptr;
    std::atomic<uint64_t> dropped{0};
    // Stack bounds for frame-pointer walks; 0 until the thread's start
    // routine wrapper sets them (written before `ready` with release).
    uintptr_t stack_lo = 0;
    uintptr_t stack_hi = 0;
    std::atomic<bool> ready{false}; // stack bounds known
    // The handler is between its check of `armed` and its exit; an exec
    // waits for it to leave before emptying the rings (seq_cst on both
    // sides: set, then read armed; clear armed, then read this).
    std::atomic<bool> in_handler{false};
    bool announced = false; // drain thread: thread message sent
    // TSC ticks spent in the handler, written by the handler only:
    // [0] PC + unwind + ring push, [1] entry to exit (libcpc calls included).
    uint32_t cost[2][kCostBuckets] = {};
};

class SlotTable {
  public:
    static constexpr int kChunkSlots = 256;
    static constexpr int kMaxChunks = 64; // 16,384 live threads

    // Ordinary context: the first chunk, rings of ring_bytes each.
    bool init(size_t ring_bytes, cpc_t *cpc, cpc_set_t *set);
    // Ordinary context: one more chunk.  False when the table is at its
    // bound or memory is refused.
    bool grow();
    // [async-signal-safe] A free slot, claimed for tid; null when every
    // published slot is taken.
    Slot *claim(pid_t tid);
    int capacity() const { return chunks_.load(std::memory_order_acquire) * kChunkSlots; }
    // Fork child: the parent's grow() may have held the lock.
    void after_fork();

    // Iteration over the published slots (drain thread, exec, fork child).
    class iterator {
      public:
        iterator(const SlotTable *t, int i) : t_(t), i_(i) {}
        Slot &operator*() const { return t_->chunk_[i_ / kChunkSlots][i_ % kChunkSlots]; }
        iterator &operator++() {
            ++i_;
            return *this;
        }
        bool operator!=(const iterator &o) const { return i_ != o.i_; }

      private:
        const SlotTable *t_;
        int i_;
    };
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, capacity()}; }

  private:
    bool add_chunk();

    // chunk_[i] is written before chunks_ is raised past i (release), and
    // read only below the count loaded with acquire.
    Slot *chunk_[kMaxChunks] = {};
    std::atomic<int> chunks_{0};
    std::mutex grow_lock_; // ordinary context only
    size_t ring_bytes_ = 0;
    cpc_t *cpc_ = nullptr;
    cpc_set_t *set_ = nullptr;
};

} // namespace cpcprof::agent
