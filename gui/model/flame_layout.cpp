// SPDX-License-Identifier: MIT
#include "gui/model/flame_layout.h"

#include <algorithm>

namespace cpcprof::gui {

using analysis::CallTree;

uint64_t flame_weight(const CallTree::Node &n, int event) {
    if (event < 0 || size_t(event) >= n.total.values.size())
        return 0;
    return n.total.values[size_t(event)];
}

std::vector<uint32_t> flame_path(const CallTree &tree, uint32_t node) {
    std::vector<uint32_t> path;
    const auto &nodes = tree.nodes();
    for (uint32_t v = node; v != 0 && v < nodes.size(); v = nodes[v].parent)
        path.push_back(v);
    std::reverse(path.begin(), path.end());
    return path;
}

FlameLayout layout_flame(const analysis::Query &q, const CallTree &tree, uint32_t zoom, int event,
                         double width, double min_width) {
    FlameLayout out;
    const auto &nodes = tree.nodes();
    if (zoom >= nodes.size() || width <= 0)
        return out;
    for (uint32_t a : flame_path(tree, nodes[zoom].parent)) {
        out.frames.push_back({a, nodes[a].depth - 1, 0, width, true});
        out.rows = nodes[a].depth;
    }
    uint64_t whole = flame_weight(nodes[zoom], event);
    if (whole == 0)
        return out;
    double scale = width / double(whole);
    const auto &functions = q.functions();
    auto before = [&](uint32_t a, uint32_t b) {
        uint64_t wa = flame_weight(nodes[a], event), wb = flame_weight(nodes[b], event);
        if (wa != wb)
            return wa > wb;
        const std::string &na = functions[nodes[a].function].name;
        const std::string &nb = functions[nodes[b].function].name;
        return na != nb ? na < nb : a < b;
    };
    // Explicit stack: trees may be thousands of frames deep.
    struct Item {
        uint32_t node;
        double x;
    };
    std::vector<Item> todo;
    if (zoom != 0) {
        todo.push_back({zoom, 0});
    } else {
        std::vector<uint32_t> roots = nodes[0].children;
        std::sort(roots.begin(), roots.end(), before);
        double x = 0;
        std::vector<Item> level;
        for (uint32_t r : roots) {
            double w = double(flame_weight(nodes[r], event)) * scale;
            if (w >= min_width)
                level.push_back({r, x});
            x += w;
        }
        todo.assign(level.rbegin(), level.rend());
    }
    std::vector<uint32_t> kids;
    while (!todo.empty()) {
        Item it = todo.back();
        todo.pop_back();
        const CallTree::Node &n = nodes[it.node];
        double w = double(flame_weight(n, event)) * scale;
        out.frames.push_back({it.node, n.depth - 1, it.x, w, false});
        out.rows = std::max(out.rows, n.depth);
        kids = n.children;
        std::sort(kids.begin(), kids.end(), before);
        size_t first = todo.size();
        double x = it.x;
        for (uint32_t c : kids) {
            double cw = double(flame_weight(nodes[c], event)) * scale;
            if (cw < min_width)
                break; // sorted by cost: the rest are narrower still
            todo.push_back({c, x});
            x += cw;
        }
        std::reverse(todo.begin() + std::ptrdiff_t(first), todo.end());
    }
    return out;
}

} // namespace cpcprof::gui
