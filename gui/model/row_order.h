// SPDX-License-Identifier: MIT
// The order a page first shows a profile's rows in, made with the profile
// off the GUI thread (build_views), so that a page's reset does not sort
// 100,000 rows there: the first event's cost, descending, ties in the
// order the rows were made (by index), which is what the item models'
// sort by that column gives (CostModel::sortBy: the figure as a double).
//
//   RowOrder o = tree_order(tree, CostKind::total);  // node n's children:
//   o.items[o.first[n] .. o.first[n + 1])             // sorted
#pragma once

#include "profiler/analysis/hotspots.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <vector>

namespace cpcprof::gui {

enum class CostKind { self, total };

struct RowOrder {
    // A table's rows (first empty), or every tree node's children, one
    // node after the other: node n's at items[first[n] .. first[n + 1]).
    std::vector<uint32_t> items;
    std::vector<uint32_t> first;
};

// The first event's value of a cost as the models sort it (0 without one).
inline double first_value(const analysis::Cost &c) {
    return c.values.empty() ? 0.0 : double(c.values[0]);
}

// rows by their first event's self or total cost, descending.
RowOrder table_order(const std::vector<analysis::HotspotRow> &rows, CostKind kind);
// Each node's children by their first event's self or total cost, descending.
RowOrder tree_order(const analysis::CallTree &tree, CostKind kind);

} // namespace cpcprof::gui
