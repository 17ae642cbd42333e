// Signal context: map, unmap, take_latest and discard are system calls and
// plain memory accesses only.
#include "sample_ring.h"

#include <linux/perf_event.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include <cstring>
#include <utility>

namespace cpc {

namespace {

// One page of records: a sample of a group of n events takes 8 * (n + 4)
// bytes, and the handler consumes the ring at every overflow.
constexpr size_t kDataPages = 1;

size_t page_size() { return getauxval(AT_PAGESZ); }

size_t data_bytes() { return kDataPages * page_size(); }

} // namespace

SampleRing::SampleRing(SampleRing &&o) noexcept
    : page_(std::exchange(o.page_, nullptr)), map_bytes_(std::exchange(o.map_bytes_, 0)) {}

SampleRing &SampleRing::operator=(SampleRing &&o) noexcept {
    if (this != &o) {
        unmap();
        page_ = std::exchange(o.page_, nullptr);
        map_bytes_ = std::exchange(o.map_bytes_, 0);
    }
    return *this;
}

void SampleRing::prepare(perf_event_attr *attr) {
    attr->sample_type |= PERF_SAMPLE_READ;
    // The kernel wakes the ring's readers (an IRQ-work interrupt, costly
    // in a VM) each time this many bytes have been written: with the
    // default, half the buffer, that is every few dozen samples.
    attr->watermark = 1;
    attr->wakeup_watermark = static_cast<uint32_t>(data_bytes());
}

bool SampleRing::map(int fd) {
    unmap();
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

bool SampleRing::take_latest(uint64_t *out, size_t n) {
    if (page_ == nullptr)
        return false;
    const size_t size = data_bytes();
    const size_t mask = size - 1;
    const char *data = reinterpret_cast<const char *>(page_) + page_size();
    uint64_t head = __atomic_load_n(&page_->data_head, __ATOMIC_ACQUIRE); // see discard()
    uint64_t tail = page_->data_tail; // written by this thread only
    bool found = false;
    // Records are 8-byte aligned, so a header never wraps; a body may.
    while (head - tail >= sizeof(perf_event_header)) {
        perf_event_header h;
        std::memcpy(&h, data + (tail & mask), sizeof h);
        if (h.size < sizeof h || h.size > head - tail)
            break; // not a record: give the ring back as it is
        size_t body = h.size - sizeof h;
        if (h.type == PERF_RECORD_SAMPLE && body == n * sizeof(uint64_t)) {
            size_t at = (tail + sizeof h) & mask;
            size_t first = body < size - at ? body : size - at;
            std::memcpy(out, data + at, first);
            std::memcpy(reinterpret_cast<char *>(out) + first, data, body - first);
            found = true;
        }
        tail += h.size;
    }
    __atomic_store_n(&page_->data_tail, head, __ATOMIC_RELEASE); // see discard()
    return found;
}

} // namespace cpc
