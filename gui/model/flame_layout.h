// SPDX-License-Identifier: MIT
// Where the viewer's flame graph draws its frames: analysis::lay_out_flame
// for one event and one zoomed node, in pixels of a given width, so that
// the widget, the benchmark and the tests agree on every rectangle.
//
// Widths are proportional to the zoomed node's total of the event; the
// zoomed node spans the whole width and its ancestors are drawn above it
// at full width (the way back out).  Siblings are sorted by cost, largest
// first, then by name, so a picture is the same on every run.  A frame
// narrower than min_width pixels is not drawn, nor is anything under it.
// The tree's invisible root (node 0) is not drawn: row 0 holds its
// children.
#pragma once

#include "profiler/analysis/query.h"

#include <cstdint>
#include <vector>

namespace cpcprof::gui {

struct FlameFrame {
    uint32_t node = 0;     // CallTree node
    uint32_t row = 0;      // 0 = outermost (a root of the tree)
    double x = 0;          // pixels from the left
    double width = 0;      // pixels
    bool ancestor = false; // above the zoomed node: drawn full width
};

struct FlameLayout {
    std::vector<FlameFrame> frames; // parents before children
    uint32_t rows = 0;              // rows in use (deepest row + 1)
};

// zoom = 0 shows every root.  event must be a valid index of q.events().
FlameLayout layout_flame(const analysis::Query &q, const analysis::CallTree &tree, uint32_t zoom,
                         int event, double width, double min_width = 1.0);

} // namespace cpcprof::gui
