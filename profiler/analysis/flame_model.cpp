// SPDX-License-Identifier: MIT
// Flame graph frames from a call tree (flame_model.h).
#include "profiler/analysis/flame_model.h"

namespace cpcprof::analysis {

namespace {

FrameKind kind_of(const Query &q, const CallTree::Node &n, uint32_t node) {
    if (node == 0)
        return FrameKind::Root;
    if (n.inlined)
        return FrameKind::Inlined;
    return q.functions()[n.function].has_symbols ? FrameKind::Code : FrameKind::NoSymbol;
}

} // namespace

FlameModel build_model(const Query &q, bool inverted, const std::vector<int> &weights,
                       double min_share) {
    // Cut stacks under "[truncated]" (as the exports put them), not as
    // extra roots beside the true ones (inverted: it is the cut stacks'
    // outermost caller); a run without stacks has only cut
    // ones, and the marker would say nothing.
    bool marker = q.reader().run().call_graph != "none";
    FlameModel m{
        inverted ? CallTree::bottom_up(q, marker) : CallTree::top_down(q, marker), {}, 0, 0};
    FlameLayout l =
        lay_out_flame(CallTreeFlame(q, m.tree, weights),
                      {.zoom = 0, .order = SiblingOrder::ByName, .min_share = min_share});
    const auto &nodes = m.tree.nodes();
    m.frames.reserve(l.places.size());
    for (const FlamePlace &p : l.places)
        m.frames.push_back({p.node, p.parent, p.depth, kind_of(q, nodes[p.node], p.node), p.x});
    m.max_depth = l.max_depth;
    m.pruned = nodes.size() - l.places.size();
    return m;
}

} // namespace cpcprof::analysis
