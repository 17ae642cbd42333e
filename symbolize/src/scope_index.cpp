// SPDX-License-Identifier: MIT
#include "symbolize/src/scope_index.h"

#include <algorithm>
#include <set>
#include <utility>

namespace cpcprof::symbolize {

// A sweep over the range boundaries with the set of open ranges ordered by
// depth: between two consecutive boundaries the deepest open range is the
// innermost scope.  O(n log n) once per compile unit.
ScopeIndex::ScopeIndex(std::vector<Range> ranges) {
    std::erase_if(ranges, [](const Range &r) { return r.high <= r.low; });
    if (ranges.empty())
        return;
    std::vector<const Range *> by_low, by_high;
    std::vector<uint64_t> points;
    for (const Range &r : ranges) {
        by_low.push_back(&r);
        by_high.push_back(&r);
        points.push_back(r.low);
        points.push_back(r.high);
    }
    std::sort(by_low.begin(), by_low.end(), [](auto a, auto b) { return a->low < b->low; });
    std::sort(by_high.begin(), by_high.end(), [](auto a, auto b) { return a->high < b->high; });
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());

    std::multiset<std::pair<uint32_t, uint32_t>> open; // (depth, node)
    size_t li = 0, hi = 0;
    for (size_t p = 0; p + 1 < points.size(); ++p) {
        uint64_t at = points[p];
        for (; hi < by_high.size() && by_high[hi]->high == at; ++hi)
            open.erase(open.find({by_high[hi]->depth, by_high[hi]->node}));
        for (; li < by_low.size() && by_low[li]->low == at; ++li)
            open.insert({by_low[li]->depth, by_low[li]->node});
        if (open.empty())
            continue;
        uint32_t node = open.rbegin()->second;
        if (!segments_.empty() && segments_.back().high == at && segments_.back().node == node)
            segments_.back().high = points[p + 1];
        else
            segments_.push_back({at, points[p + 1], node});
    }
}

std::optional<uint32_t> ScopeIndex::innermost(uint64_t address) const {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), address,
                               [](uint64_t a, const Segment &s) { return a < s.low; });
    if (it == segments_.begin())
        return std::nullopt;
    --it;
    if (address >= it->high)
        return std::nullopt;
    return it->node;
}

} // namespace cpcprof::symbolize
