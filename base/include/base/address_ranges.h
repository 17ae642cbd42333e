// SPDX-License-Identifier: MIT
// Address ranges [begin, end) merged into the fewest that cover the same
// addresses.  Not for signal context (it allocates).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace cpcprof::base {

using AddressRange = std::pair<uint64_t, uint64_t>; // [first, second)

// ranges sorted, with those that overlap or touch joined into one.
inline std::vector<AddressRange> merge_ranges(std::vector<AddressRange> ranges) {
    std::sort(ranges.begin(), ranges.end());
    std::vector<AddressRange> merged;
    for (const AddressRange &r : ranges) {
        if (!merged.empty() && r.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, r.second);
        else
            merged.push_back(r);
    }
    return merged;
}

} // namespace cpcprof::base
