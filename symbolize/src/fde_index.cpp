// SPDX-License-Identifier: MIT
#include "symbolize/src/fde_index.h"

#include "base/eh_frame_cursor.h"

#include <algorithm>
#include <cstring>

namespace cpcprof::symbolize {

FdeIndex::FdeIndex(std::span<const uint8_t> hdr, uint64_t vaddr) {
    // version, eh_frame_ptr_enc, fde_count_enc, table_enc, eh_frame_ptr,
    // fde_count, then fde_count (initial location, FDE address) pairs, each
    // datarel sdata4 (the only table encoding linkers write).
    using namespace base::eh;
    Cursor c{hdr.data(), hdr.data() + hdr.size()};
    uint8_t version = c.get<uint8_t>(), ptr_enc = c.get<uint8_t>();
    uint8_t count_enc = c.get<uint8_t>(), table_enc = c.get<uint8_t>();
    if (!c.ok || version != 1 || ptr_enc == DW_EH_PE_omit || count_enc == DW_EH_PE_omit ||
        table_enc != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
        return;
    c.pointer(ptr_enc, vaddr); // eh_frame_ptr: not needed
    uint64_t count = c.pointer(count_enc & DW_EH_PE_format_mask);
    if (!c.ok || count > static_cast<size_t>(c.end - c.p) / 8)
        return;
    size_t table = static_cast<size_t>(c.p - hdr.data());
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

std::optional<uint64_t> FdeIndex::start_above(uint64_t address) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), address);
    if (it == starts_.end())
        return std::nullopt;
    return *it;
}

} // namespace cpcprof::symbolize
