// The ring buffer of one overflow request's perf event.  The event samples
// PERF_SAMPLE_READ in the group format, so at every overflow the kernel
// writes the whole group's values of that instant here, before it raises
// the SIGTRAP: the overflow handler takes them from memory instead of a
// read(2) of the group.
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

class SampleRing {
  public:
    SampleRing() = default;
    SampleRing(SampleRing &&o) noexcept;
    SampleRing &operator=(SampleRing &&o) noexcept;
    SampleRing(const SampleRing &) = delete;
    SampleRing &operator=(const SampleRing &) = delete;
    ~SampleRing() { unmap(); }

    // Sets what the event must write (PERF_SAMPLE_READ) and how seldom it
    // wakes a reader nobody runs: once per buffer's worth of records.
    static void prepare(perf_event_attr *attr);

    // [async-signal-safe] Maps the ring of perf event fd, not inherited by
    // fork children.  False, leaving no ring, when the kernel refuses.
    bool map(int fd);
    // [async-signal-safe] munmap(2) only.
    void unmap();
    // In a fork child, where the mapping does not exist: forgets it
    // without unmapping whatever now lives at that address.
    void forget();
    bool valid() const { return page_ != nullptr; }
    const void *address() const { return page_; }

    // [async-signal-safe] Consumes every record in the ring and copies the
    // body of the newest sample (the group's read_format words) to out.
    // False when there is no sample, or its body is not n words.
    bool take_latest(uint64_t *out, size_t n);
    // [async-signal-safe] Consumes every record in the ring.
    void discard();

  private:
    perf_event_mmap_page *page_ = nullptr;
    size_t map_bytes_ = 0;
};

} // namespace cpc
