// SPDX-License-Identifier: MIT
#include "gui/model/search.h"

namespace cpcprof::gui {

std::vector<uint8_t> keep_nodes(const CostTree &t, const std::vector<bool> &function_matches) {
    std::vector<uint8_t> keep(t.size(), 0);
    // A node's parent has a smaller index: one backward pass.
    for (size_t n = t.size(); n-- > 1;) {
        uint32_t f = t.node(uint32_t(n)).function;
        if (f < function_matches.size() && function_matches[f])
            keep[n] = 1;
        if (keep[n])
            keep[t.node(uint32_t(n)).parent] = 1;
    }
    return keep;
}

std::vector<uint8_t> matching_nodes(const CostTree &t, const std::vector<bool> &function_matches) {
    std::vector<uint8_t> match(t.size(), 0);
    for (uint32_t n = 1; n < t.size(); ++n) {
        uint32_t f = t.node(n).function;
        match[n] = f < function_matches.size() && function_matches[f];
    }
    return match;
}

analysis::Cost matched_total(const CostTree &t, const std::vector<bool> &function_matches,
                             uint32_t under) {
    analysis::Cost sum;
    if (!t.tree || under >= t.size())
        return sum;
    sum.values.assign(t.node(0).total.values.size(), 0);
    // Depth first from `under`, not below a match: no recursion, a stack
    // of nodes to visit.
    std::vector<uint32_t> todo(t.node(under).children.rbegin(), t.node(under).children.rend());
    while (!todo.empty()) {
        uint32_t n = todo.back();
        todo.pop_back();
        uint32_t f = t.node(n).function;
        if (f < function_matches.size() && function_matches[f]) {
            sum.add(t.node(n).total);
            continue;
        }
        const auto &ch = t.node(n).children;
        todo.insert(todo.end(), ch.rbegin(), ch.rend());
    }
    return sum;
}

} // namespace cpcprof::gui
