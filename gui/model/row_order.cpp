// SPDX-License-Identifier: MIT
#include "gui/model/row_order.h"

#include <algorithm>
#include <utility>

namespace cpcprof::gui {

namespace {

// Sorts items by value (descending), ties by item: as pairs side by side.
void sort_by_value(uint32_t *items, size_t n, const std::vector<double> &value,
                   std::vector<std::pair<double, uint32_t>> &scratch) {
    scratch.resize(n);
    for (size_t i = 0; i < n; ++i)
        scratch[i] = {value[items[i]], items[i]};
    std::sort(scratch.begin(), scratch.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < n; ++i)
        items[i] = scratch[i].second;
}

} // namespace

RowOrder table_order(const std::vector<analysis::HotspotRow> &rows, CostKind kind) {
    RowOrder o;
    std::vector<double> value(rows.size());
    o.items.resize(rows.size());
    for (uint32_t r = 0; r < rows.size(); ++r) {
        value[r] = first_value(kind == CostKind::self ? rows[r].self : rows[r].total);
        o.items[r] = r;
    }
    std::vector<std::pair<double, uint32_t>> scratch;
    sort_by_value(o.items.data(), o.items.size(), value, scratch);
    return o;
}

RowOrder tree_order(const analysis::CallTree &tree, CostKind kind) {
    const auto &nodes = tree.nodes();
    RowOrder o;
    std::vector<double> value(nodes.size());
    for (size_t v = 0; v < nodes.size(); ++v)
        value[v] = first_value(kind == CostKind::self ? nodes[v].self : nodes[v].total);
    o.first.assign(nodes.size() + 1, 0);
    o.items.reserve(nodes.empty() ? 0 : nodes.size() - 1);
    std::vector<std::pair<double, uint32_t>> scratch;
    for (size_t v = 0; v < nodes.size(); ++v) {
        const std::vector<uint32_t> &kids = nodes[v].children;
        o.items.insert(o.items.end(), kids.begin(), kids.end());
        o.first[v + 1] = uint32_t(o.items.size());
        if (kids.size() > 1)
            sort_by_value(o.items.data() + o.first[v], kids.size(), value, scratch);
    }
    return o;
}

} // namespace cpcprof::gui
