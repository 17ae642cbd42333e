// SPDX-License-Identifier: MIT
// Signal context: map, unmap, take_latest and discard are system calls and
// plain memory accesses only.
#include "libcpc/src/sample_ring.h"

#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include <cstring>
#include <utility>

namespace cpc {

namespace {

// One page of records: a sample of a group of n events takes 8 * (n + 5)
// bytes, and the handler consumes the ring at every overflow; overflows
// that merge into one signal are few (a page holds ~80 of them), and the
// kernel counts what did not fit in a PERF_RECORD_LOST.
constexpr size_t kDataPages = 1;

size_t page_size() {
    return getauxval(AT_PAGESZ);
}

size_t data_bytes() {
    return kDataPages * page_size();
}

} // namespace

SampleRing::SampleRing(SampleRing &&o) noexcept
    : page_(std::exchange(o.page_, nullptr)), map_bytes_(std::exchange(o.map_bytes_, 0)),
      callchain_(o.callchain_) {}

SampleRing &SampleRing::operator=(SampleRing &&o) noexcept {
    if (this != &o) {
        unmap();
        page_ = std::exchange(o.page_, nullptr);
        map_bytes_ = std::exchange(o.map_bytes_, 0);
        callchain_ = o.callchain_;
    }
    return *this;
}

void SampleRing::prepare(perf_event_attr *attr) {
    attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_READ;
    if (!attr->exclude_kernel) {
        // The kernel's frames of an overflow there; the user's are the
        // handler's to walk (it has the registers), so the kernel's walk
        // of them is left out.
        attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
        attr->exclude_callchain_user = 1;
        attr->sample_max_stack = RingHarvest::kMaxKernelPcs;
    }
    // The kernel wakes the ring's readers (an IRQ-work interrupt, costly
    // in a VM) each time this many bytes have been written: with the
    // default, half the buffer, that is every few dozen samples.
    attr->watermark = 1;
    attr->wakeup_watermark = static_cast<uint32_t>(data_bytes());
}

bool SampleRing::map(int fd, bool callchain) {
    unmap();
    callchain_ = callchain;
    size_t bytes = page_size() + data_bytes();
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return false;
    // A fork child does not get the mapping: its counters are gone (it
    // abandons the parent's descriptors), and it must not consume the
    // parent's records.
    madvise(p, bytes, MADV_DONTFORK);
    page_ = static_cast<perf_event_mmap_page *>(p);
    map_bytes_ = bytes;
    return true;
}

void SampleRing::unmap() {
    if (page_ != nullptr)
        munmap(page_, map_bytes_);
    forget();
}

void SampleRing::forget() {
    page_ = nullptr;
    map_bytes_ = 0;
}

void SampleRing::discard() {
    if (page_ == nullptr)
        return;
    // Acquire pairs with the kernel's store of data_head after the record
    // bytes; the release store of data_tail tells it the bytes are free
    // only after they have been read.
    uint64_t head = __atomic_load_n(&page_->data_head, __ATOMIC_ACQUIRE);
    __atomic_store_n(&page_->data_tail, head, __ATOMIC_RELEASE);
}

bool SampleRing::take_latest(uint64_t *out, size_t n, RingHarvest *h) {
    if (page_ == nullptr)
        return false;
    const size_t size = data_bytes();
    const size_t mask = size - 1;
    const char *data = reinterpret_cast<const char *>(page_) + page_size();
    // Copies len bytes of record data at ring offset pos (a body may wrap).
    auto copy = [&](void *dst, uint64_t pos, size_t len) {
        size_t at = pos & mask;
        size_t first = len < size - at ? len : size - at;
        std::memcpy(dst, data + at, first);
        std::memcpy(static_cast<char *>(dst) + first, data, len - first);
    };
    uint64_t head = __atomic_load_n(&page_->data_head, __ATOMIC_ACQUIRE); // see discard()
    uint64_t tail = page_->data_tail; // written by this thread only
    // A sample: IP, the group's n words, then (callchain_) nr and nr
    // frames, PERF_CONTEXT_* markers among them.
    const size_t fixed = (n + 1) * sizeof(uint64_t);
    const size_t most =
        fixed + (callchain_ ? (2 + 4 + RingHarvest::kMaxKernelPcs) * sizeof(uint64_t) : 0);
    h->full = head - tail + sizeof(perf_event_header) + most > size;
    bool found = false;
    uint64_t newest_pc = 0;
    // Records are 8-byte aligned, so a header never wraps; a body may.
    while (head - tail >= sizeof(perf_event_header)) {
        perf_event_header hd;
        std::memcpy(&hd, data + (tail & mask), sizeof hd);
        if (hd.size < sizeof hd || hd.size > head - tail)
            break; // not a record: give the ring back as it is
        size_t body = hd.size - sizeof hd;
        uint64_t at = tail + sizeof hd;
        uint64_t nr = 0;
        if (hd.type == PERF_RECORD_SAMPLE && callchain_ && body >= fixed + sizeof nr)
            copy(&nr, at + fixed, sizeof nr);
        if (hd.type == PERF_RECORD_SAMPLE &&
            body == fixed + (callchain_ ? (nr + 1) * sizeof(uint64_t) : 0)) {
            // An older sample's PC is kept before the newer one replaces it.
            if (found && h->npcs < RingHarvest::kMaxPcs)
                h->pcs[h->npcs++] = newest_pc;
            copy(&newest_pc, at, sizeof newest_pc);
            copy(out, at + sizeof newest_pc, n * sizeof(uint64_t));
            // The kernel's frames follow PERF_CONTEXT_KERNEL; the user's
            // part (PERF_CONTEXT_USER) is left out by the event.
            h->nkernel = 0;
            bool kernel = false;
            for (uint64_t i = 0; i < nr; ++i) {
                uint64_t pc;
                copy(&pc, at + fixed + (1 + i) * sizeof pc, sizeof pc);
                if (pc >= uint64_t(PERF_CONTEXT_MAX))
                    kernel = pc == uint64_t(PERF_CONTEXT_KERNEL);
                else if (kernel && h->nkernel < RingHarvest::kMaxKernelPcs)
                    h->kernel_pcs[h->nkernel++] = pc;
            }
            ++h->samples;
            found = true;
        } else if (hd.type == PERF_RECORD_LOST && body >= 2 * sizeof(uint64_t)) {
            uint64_t lost; // { u64 id; u64 lost; }
            copy(&lost, at + sizeof(uint64_t), sizeof lost);
            h->lost += lost;
        }
        tail += hd.size;
    }
    __atomic_store_n(&page_->data_tail, head, __ATOMIC_RELEASE); // see discard()
    return found;
}

} // namespace cpc
