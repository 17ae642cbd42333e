// SPDX-License-Identifier: MIT
// Flame graph frames from a call tree (flame_model.h).
#include "profiler/analysis/flame_model.h"

#include <algorithm>

namespace cpcprof::analysis {

using analysis::CallTree;

namespace {

FrameKind kind_of(const analysis::Query &q, const CallTree::Node &n, uint32_t node) {
    if (node == 0)
        return FrameKind::Root;
    if (n.inlined)
        return FrameKind::Inlined;
    return q.functions()[n.function].has_symbols ? FrameKind::Code : FrameKind::NoSymbol;
}

} // namespace

FlameModel build_model(const analysis::Query &q, bool inverted, const std::vector<int> &weights,
                       double min_share) {
    // Cut stacks under "[truncated]" (as the exports put them), not as
    // extra roots beside the true ones (inverted: it is the cut stacks'
    // outermost caller); a run without stacks has only cut
    // ones, and the marker would say nothing.
    bool marker = q.reader().run().call_graph != "none";
    FlameModel m{
        inverted ? CallTree::bottom_up(q, marker) : CallTree::top_down(q, marker), {}, 0, 0};
    const auto &nodes = m.tree.nodes();
    const auto &fns = q.functions();
    std::vector<uint64_t> floor;
    for (int w : weights) {
        uint64_t root = weight_of(nodes[0].total, w);
        if (root > 0)
            floor.push_back(std::max<uint64_t>(1, uint64_t(double(root) * min_share)));
        else
            floor.push_back(UINT64_MAX);
    }
    auto keep = [&](const CallTree::Node &n) {
        for (size_t k = 0; k < weights.size(); ++k)
            if (weight_of(n.total, weights[k]) >= floor[k])
                return true;
        return false;
    };
    auto by_name = [&](uint32_t a, uint32_t b) {
        const std::string &na = fns[nodes[a].function].name, &nb = fns[nodes[b].function].name;
        return na != nb ? na < nb : a < b;
    };

    m.frames.reserve(nodes.size());
    // Depth-first, children pushed in reverse name order so that they pop
    // in name order.  Node totals only shrink going down the tree, so a
    // pruned node's subtree is pruned with it.
    struct Todo {
        uint32_t node;
        int32_t parent;
        uint32_t depth;
    };
    std::vector<Todo> todo{{0, -1, 0}};
    std::vector<uint32_t> kids;
    size_t kept_nodes = 0;
    while (!todo.empty()) {
        Todo t = todo.back();
        todo.pop_back();
        const CallTree::Node &n = nodes[t.node];
        auto index = int32_t(m.frames.size());
        m.frames.push_back({t.node, t.parent, t.depth, kind_of(q, n, t.node)});
        ++kept_nodes;
        m.max_depth = std::max(m.max_depth, t.depth);
        kids.clear();
        for (uint32_t c : n.children)
            if (keep(nodes[c]))
                kids.push_back(c);
        std::sort(kids.begin(), kids.end(), by_name);
        for (auto it = kids.rbegin(); it != kids.rend(); ++it)
            todo.push_back({*it, index, t.depth + 1});
    }
    m.pruned = nodes.size() - kept_nodes;
    return m;
}

} // namespace cpcprof::analysis
