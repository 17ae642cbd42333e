// SPDX-License-Identifier: MIT
// The ring buffer of one overflow request's perf event.  The event samples
// PERF_SAMPLE_IP and PERF_SAMPLE_READ in the group format, so at every
// overflow the kernel writes the interrupted PC and the whole group's
// values of that instant here, before it raises the SIGTRAP: the overflow
// handler takes them from memory instead of a read(2) of the group.
//
// One SIGTRAP may stand for several overflows: perf raises the signal once
// per pending delivery (perf_event's pending_sigtrap), so overflows that
// come before the signal reaches the thread - a short period, a busy
// kernel - merge into one signal, while each still writes its record.  The
// records are the kernel's own count of overflows; the handler counts them
// (and the kernel's PERF_RECORD_LOST counts) so that none goes unseen.
//
// Without the ring (the kernel refuses the mapping once perf_event_mlock_kb
// and RLIMIT_MEMLOCK are spent) nothing is written and the caller reads the
// group instead: the ring only saves a system call.
#pragma once

#include <cstddef>
#include <cstdint>

struct perf_event_attr;
struct perf_event_mmap_page;

namespace cpc {

// What one pass over the ring found besides the newest sample.
struct RingHarvest {
    static constexpr int kMaxPcs = 32;
    static constexpr int kMaxKernelPcs = 48;
    uint64_t samples = 0; // PERF_RECORD_SAMPLE records consumed
    uint64_t lost = 0;    // overflows the kernel could not write (PERF_RECORD_LOST)
    int npcs = 0;         // PCs of the samples before the newest, oldest first
    uint64_t pcs[kMaxPcs];
    // The ring had no room for another sample: the kernel has been losing
    // them, and says how many only in a record written once there is room.
    bool full = false;
    // The newest sample's kernel frames, innermost first (an overflow in
    // the kernel, where the event counts there): nkernel of them.
    int nkernel = 0;
    uint64_t kernel_pcs[kMaxKernelPcs];
};

class SampleRing {
  public:
    SampleRing() = default;
    SampleRing(SampleRing &&o) noexcept;
    SampleRing &operator=(SampleRing &&o) noexcept;
    SampleRing(const SampleRing &) = delete;
    SampleRing &operator=(const SampleRing &) = delete;
    ~SampleRing() { unmap(); }

    // Sets what the event must write (PERF_SAMPLE_READ; the kernel's part
    // of the stack where the event counts in the kernel) and how seldom it
    // wakes a reader nobody runs: once per buffer's worth of records.
    static void prepare(perf_event_attr *attr);

    // [async-signal-safe] Maps the ring of perf event fd, not inherited by
    // fork children; callchain: its samples carry the kernel's frames
    // (attr's PERF_SAMPLE_CALLCHAIN, as prepare set it).  False, leaving no
    // ring, when the kernel refuses.
    bool map(int fd, bool callchain = false);
    // [async-signal-safe] munmap(2) only.
    void unmap();
    // In a fork child, where the mapping does not exist: forgets it
    // without unmapping whatever now lives at that address.
    void forget();
    bool valid() const { return page_ != nullptr; }
    const void *address() const { return page_; }

    // [async-signal-safe] Consumes every record in the ring and copies the
    // group's read_format words of the newest sample (n words) to out;
    // counts every sample and lost record into *h and keeps the PCs of the
    // older samples.  False when there is no sample of the right size.
    bool take_latest(uint64_t *out, size_t n, RingHarvest *h);
    // [async-signal-safe] Consumes every record in the ring.
    void discard();

  private:
    perf_event_mmap_page *page_ = nullptr;
    size_t map_bytes_ = 0;
    bool callchain_ = false;
};

} // namespace cpc
