// SPDX-License-Identifier: MIT
// A single-producer single-consumer byte ring of variable-length records.
// The producer is one thread's overflow handler (signal context); the
// consumer is the agent's drain thread.  Records never wrap: one that does
// not fit before the end is preceded by a padding marker.
//
// Layout: [u64 length][payload, padded to 8 bytes] ...; length kPad marks
// padding up to the end of the buffer.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>

namespace cpcprof::agent {

class Ring {
  public:
    static constexpr uint64_t kPad = ~0ull;

    // [async-signal-safe] Uses [mem, mem + bytes); bytes is a multiple of
    // 8.  Called when a slot is claimed (SlotTable::claim).
    void attach(char *mem, size_t bytes) {
        data_ = mem;
        size_ = bytes;
        head_.store(0, std::memory_order_relaxed);
        tail_.store(0, std::memory_order_relaxed);
    }

    // [async-signal-safe] Space for a payload of n bytes, or null when the
    // ring is full (the caller counts a drop).  Must be followed by commit.
    void *reserve(size_t n) {
        uint64_t need = 8 + align8(n);
        uint64_t h = head_.load(std::memory_order_relaxed); // only we write it
        // acquire: the consumer's reads of the space it frees happen before
        // we overwrite that space.
        uint64_t t = tail_.load(std::memory_order_acquire);
        uint64_t pos = h % size_;
        uint64_t pad = size_ - pos < need ? size_ - pos : 0;
        if (need + pad > size_ - (h - t))
            return nullptr;
        if (pad != 0) {
            std::memcpy(data_ + pos, &kPad, sizeof kPad);
            pending_ = h + pad;
            pos = 0;
        } else {
            pending_ = h;
        }
        pending_len_ = n;
        return data_ + pos + 8;
    }

    // [async-signal-safe] Publishes the record reserved last, n bytes of
    // it (n <= the reserved size: a record may be written in place before
    // its final length is known).
    void commit(size_t n) {
        uint64_t pos = pending_ % size_;
        uint64_t len = n < pending_len_ ? n : pending_len_;
        std::memcpy(data_ + pos, &len, sizeof len);
        // release: the record's bytes are visible before the new head.
        head_.store(pending_ + 8 + align8(len), std::memory_order_release);
    }

    // Consumer: calls fn(payload, length) for every published record and
    // frees them.  Returns the number of records.
    template <class F> size_t consume(F &&fn) {
        uint64_t t = tail_.load(std::memory_order_relaxed); // only we write it
        uint64_t h = head_.load(std::memory_order_acquire); // pairs with commit
        size_t n = 0;
        while (t < h) {
            uint64_t pos = t % size_;
            uint64_t len;
            std::memcpy(&len, data_ + pos, sizeof len);
            if (len == kPad) {
                t += size_ - pos;
                continue;
            }
            fn(data_ + pos + 8, static_cast<size_t>(len));
            t += 8 + align8(len);
            ++n;
        }
        tail_.store(t, std::memory_order_release); // pairs with reserve
        return n;
    }

    // Makes the pages of the buffer's first `bytes` (all by default)
    // present and writable without changing their contents (the producer
    // may already be using it).  Ordinary context; a kernel without
    // MADV_POPULATE_WRITE (5.14) skips it.
    void prefault(size_t bytes = SIZE_MAX) {
        constexpr int kPopulateWrite = 23; // MADV_POPULATE_WRITE
        auto page = reinterpret_cast<uintptr_t>(data_) & ~uintptr_t(4095);
        size_t len = std::min(bytes, size_) + (reinterpret_cast<uintptr_t>(data_) - page);
        madvise(reinterpret_cast<void *>(page), len, kPopulateWrite);
    }

    bool empty() const {
        return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_relaxed);
    }

    // Consumer only, with the producer gone: forget everything.
    void reset() {
        head_.store(0, std::memory_order_relaxed);
        tail_.store(0, std::memory_order_relaxed);
    }

  private:
    static uint64_t align8(uint64_t n) { return (n + 7) & ~uint64_t(7); }

    char *data_ = nullptr;
    size_t size_ = 0;
    std::atomic<uint64_t> head_{0};
    std::atomic<uint64_t> tail_{0};
    uint64_t pending_ = 0;     // producer-private
    uint64_t pending_len_ = 0; // producer-private
};

} // namespace cpcprof::agent
