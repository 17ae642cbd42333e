// SPDX-License-Identifier: MIT
// The per-thread slots that the overflow handler writes into, in chunks
// that are added as the program starts threads, so that every live thread
// has one however many there are (up to kMaxChunks * kChunkSlots).
//
// A chunk is made in ordinary context (a thread's set-up, before its first
// sample) and published with a release store of the chunk count; the
// handler and the drain thread only read published chunks.  A chunk is
// never freed: slots are reused by later threads.  A chunk's memory is
// fresh anonymous memory, whose zero bytes are a free slot's state, and
// is not written until a thread claims a slot in it: an untouched slot
// costs no page fault, at start-up nor in a fork child.
#pragma once

#include "profiler/agent/ring.h"

#include <libcpc.h>

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <sys/types.h>
#include <type_traits>

namespace cpcprof::agent {

// The copy of a stack of the program's own making (a coroutine's, a Go
// goroutine's) that the handler walks (unwind.h, Scratch): as much as
// perf's default stack copy, twice.
inline constexpr size_t kStackCopyBytes = 16 * 1024;

// Handler cost histograms: 25 ns buckets up to 20 us, then one overflow.
inline constexpr int kCostBuckets = 801;
inline constexpr uint64_t kCostBucketNs = 25;

struct Slot {
    std::atomic<pid_t> tid{0}; // 0: free
    Ring ring;                 // attached when the slot is claimed
    cpc_buf_t *buf = nullptr;  // for sets of several requests
    std::atomic<uint64_t> dropped{0};
    // Stack bounds for frame-pointer walks; 0 until the thread's start
    // routine wrapper sets them (written before `ready` with release).
    uintptr_t stack_lo = 0;
    uintptr_t stack_hi = 0;
    std::atomic<bool> ready{false}; // stack bounds known
    // The ring's pages are left for the drain thread's next pass to fault
    // in, off the thread's start (0.08-0.14 ms a process; a fork child's
    // are its parent's until written, and most such children exec before
    // that pass).  Until then a sample that reaches a new page takes the
    // page fault in the handler.
    std::atomic<bool> pages_pending{false};
    // The handler is between its check of `armed` and its exit; an exec
    // waits for it to leave before emptying the rings (seq_cst on both
    // sides: set, then read armed; clear armed, then read this).
    std::atomic<bool> in_handler{false};
    bool announced = false; // drain thread: thread message sent
    // The thread's name as it stood when the thread was set up (its own
    // prctl(PR_GET_NAME)) or as the program set it since (the interposed
    // pthread_setname_np and prctl(PR_SET_NAME)); sent by the drain thread
    // with the thread message.  Reading /proc/self/task/TID/comm instead
    // costs every thread about 0.7 ms when it ends (the kernel flushes
    // the /proc entry made for it).
    char name[16] = {};
    char sent_name[16] = {}; // drain thread: the name last sent
    pthread_t thread{};
    // TSC ticks spent in the handler, written by the handler only:
    // [0] PC + unwind + ring push, [1] entry to exit (libcpc calls included).
    uint32_t cost[2][kCostBuckets] = {};
    // The handler's copy of a stack it cannot read in place (unwind.h);
    // its pages are touched only by a thread that runs on such a stack.
    unsigned char stack_copy[kStackCopyBytes] = {};
};
// Zero bytes are a free slot (see above): nothing to run at destruction,
// and every member's initial value is zero.
static_assert(std::is_trivially_destructible_v<Slot>);

class SlotTable {
  public:
    static constexpr int kChunkSlots = 256;
    static constexpr int kMaxChunks = 64; // 16,384 live threads

    // Ordinary context: the first chunk, rings of ring_bytes each; bufs:
    // every slot gets a cpc_buf_t of set (the handler reads the other
    // requests of a set of several through it).
    bool init(size_t ring_bytes, cpc_t *cpc, cpc_set_t *set, bool bufs);
    // Ordinary context: one more chunk, unless the table already holds
    // more than `seen` slots (another thread grew it since its caller
    // found all `seen` taken).  False when the table is at its bound or
    // memory is refused.
    bool grow(int seen);
    // [async-signal-safe] The slots published so far.
    int capacity() const { return chunks_.load(std::memory_order_acquire) * kChunkSlots; }
    // [async-signal-safe] The lowest free slot, claimed for tid, its ring
    // attached; null when every published slot is taken.
    Slot *claim(pid_t tid);
    // [async-signal-safe] Only slots below this index have ever been
    // claimed in this process: loops over the slots stop there.
    int bound() const { return bound_.load(std::memory_order_acquire); }
    Slot &operator[](int i) const { return chunk_[i / kChunkSlots][i % kChunkSlots]; }
    // Fork child: the parent's grow() may have held the lock.
    void after_fork();

    // Iteration over the slots below bound() (drain thread, exec, fork).
    class iterator {
      public:
        iterator(const SlotTable *t, int i) : t_(t), i_(i) {}
        Slot &operator*() const { return (*t_)[i_]; }
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
    iterator end() const { return {this, bound()}; }

  private:
    bool add_chunk();

    // chunk_[i] and rings_[i] are written before chunks_ is raised past i
    // (release), and read only below the count loaded with acquire.
    Slot *chunk_[kMaxChunks] = {};
    char *rings_[kMaxChunks] = {};
    std::atomic<int> chunks_{0};
    std::atomic<int> bound_{0};
    std::mutex grow_lock_; // ordinary context only
    size_t ring_bytes_ = 0;
    cpc_t *cpc_ = nullptr;
    cpc_set_t *set_ = nullptr;
    bool bufs_ = false;
};

} // namespace cpcprof::agent
