// SPDX-License-Identifier: MIT
// The function scopes of one compile unit (subprograms and inlined
// subroutines), flattened once into sorted, non-overlapping segments that
// each name the innermost scope covering them.  Looking up an address is a
// binary search plus a walk up the parents, where dwarf_getscopes would walk
// the compile unit's whole DIE tree for every address.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace cpcprof::symbolize {

class ScopeIndex {
  public:
    // One address range of scope `node`, at DIE-tree `depth` (a scope nested
    // in another is deeper).  A scope may have several ranges.
    struct Range {
        uint64_t low, high; // [low, high)
        uint32_t node;
        uint32_t depth;
    };

    ScopeIndex() = default;
    explicit ScopeIndex(std::vector<Range> ranges);

    // The innermost scope covering address.
    std::optional<uint32_t> innermost(uint64_t address) const;

    size_t segments() const { return segments_.size(); }

  private:
    struct Segment {
        uint64_t low, high;
        uint32_t node;
    };
    std::vector<Segment> segments_; // sorted, disjoint
};

} // namespace cpcprof::symbolize
