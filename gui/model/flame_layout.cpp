// SPDX-License-Identifier: MIT
#include "gui/model/flame_layout.h"

#include "profiler/analysis/flame_layout.h"

#include <algorithm>

namespace cpcprof::gui {

FlameLayout layout_flame(const analysis::Query &q, const analysis::CallTree &tree, uint32_t zoom,
                         int event, double width, double min_width) {
    FlameLayout out;
    if (width <= 0)
        return out;
    analysis::FlameLayout l = analysis::lay_out_flame(
        analysis::CallTreeFlame(q, tree, {event}),
        {.zoom = zoom, .order = analysis::SiblingOrder::ByCost, .min_share = min_width / width});
    if (l.places.empty())
        return out;
    // Nothing of the zoomed node's own is drawn when it weighs nothing.
    uint64_t whole = analysis::weight_of(tree.nodes()[zoom].total, event);
    double scale = whole > 0 ? width / double(whole) : 0;
    for (const analysis::FlamePlace &p : l.places) {
        if (p.node == 0 || (!p.ancestor && whole == 0))
            continue;
        double x = p.ancestor ? 0 : double(p.x) * scale;
        double w = p.ancestor ? width : double(p.width) * scale;
        out.frames.push_back({p.node, p.depth - 1, x, w, p.ancestor});
        out.rows = std::max(out.rows, p.depth);
    }
    return out;
}

} // namespace cpcprof::gui
