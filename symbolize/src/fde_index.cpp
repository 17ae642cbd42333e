#include "fde_index.h"

#include <algorithm>
#include <cstring>

namespace cpcprof::symbolize {

namespace {

constexpr uint8_t kOmit = 0xff;
constexpr uint8_t kDatarelSdata4 = 0x3b; // DW_EH_PE_datarel | DW_EH_PE_sdata4

// Bytes of a pointer encoded as enc, for the value formats a header uses
// (absptr/udata8/sdata8: 8; udata4/sdata4: 4); 0 for anything else.
size_t encoded_size(uint8_t enc) {
    switch (enc & 0x0f) {
    case 0x00: // absptr, on a 64-bit target
    case 0x04: // udata8
    case 0x0c: // sdata8
        return 8;
    case 0x03: // udata4
    case 0x0b: // sdata4
        return 4;
    default:
        return 0;
    }
}

uint64_t read_unsigned(const uint8_t *p, size_t n) {
    uint64_t v = 0;
    std::memcpy(&v, p, n); // little-endian targets only (x86-64, aarch64)
    return v;
}

} // namespace

FdeIndex::FdeIndex(std::span<const uint8_t> hdr, uint64_t vaddr) {
    // version, eh_frame_ptr_enc, fde_count_enc, table_enc, eh_frame_ptr,
    // fde_count, then fde_count (initial location, FDE address) pairs.
    if (hdr.size() < 4 || hdr[0] != 1 || hdr[1] == kOmit || hdr[3] != kDatarelSdata4)
        return;
    size_t ptr_size = encoded_size(hdr[1]), count_size = encoded_size(hdr[2]);
    if (ptr_size == 0 || count_size == 0 || hdr.size() < 4 + ptr_size + count_size)
        return;
    uint64_t count = read_unsigned(&hdr[4 + ptr_size], count_size);
    size_t table = 4 + ptr_size + count_size;
    if (count > (hdr.size() - table) / 8)
        return;
    starts_.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
        int32_t rel;
        std::memcpy(&rel, &hdr[table + i * 8], sizeof rel);
        starts_.push_back(vaddr + static_cast<uint64_t>(static_cast<int64_t>(rel)));
    }
    std::sort(starts_.begin(), starts_.end()); // linkers sort it; a file from elsewhere may not
}

void FdeIndex::add_stubs(uint64_t begin, uint64_t end) {
    if (begin < end)
        stubs_.emplace_back(begin, end);
}

std::optional<uint64_t> FdeIndex::start_at_or_below(uint64_t address) const {
    for (const auto &[begin, end] : stubs_)
        if (address >= begin && address < end)
            return std::nullopt;
    auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
    if (it == starts_.begin())
        return std::nullopt;
    return *std::prev(it);
}

} // namespace cpcprof::symbolize
