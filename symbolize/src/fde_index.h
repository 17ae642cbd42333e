// SPDX-License-Identifier: MIT
// Where the functions of a module begin, from its call-frame information:
// the start of every FDE, as .eh_frame_hdr's binary-search table lists
// them.  It names the functions of a stripped module that no symbol covers
// (perf and elfutils' eu-stack group such addresses the same way): an
// address belongs to the FDE that starts at or before it, when some FDE
// covers it at all (the caller checks that with libdw's CFI).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace cpcprof::symbolize {

class FdeIndex {
  public:
    FdeIndex() = default;
    // hdr: the bytes of .eh_frame_hdr (PT_GNU_EH_FRAME), at ELF address
    // vaddr.  Tables in an encoding that linkers do not emit (anything but
    // DW_EH_PE_datarel | DW_EH_PE_sdata4), or cut short, give an empty
    // index.
    FdeIndex(std::span<const uint8_t> hdr, uint64_t vaddr);

    // [begin, end) is a table of PLT stubs (.plt, .plt.sec, .plt.got): one
    // FDE covers all of them, but each stub is a function of its own.
    void add_stubs(uint64_t begin, uint64_t end);

    // The ELF address of the last FDE start at or below address; nullopt if
    // none, or if address is in a table of stubs.
    std::optional<uint64_t> start_at_or_below(uint64_t address) const;
    // The first FDE start above address (where the next function begins);
    // nullopt if none.
    std::optional<uint64_t> start_above(uint64_t address) const;

    size_t size() const { return starts_.size(); }

  private:
    std::vector<uint64_t> starts_;                     // sorted
    std::vector<std::pair<uint64_t, uint64_t>> stubs_; // a few: searched in turn
};

} // namespace cpcprof::symbolize
