// SPDX-License-Identifier: MIT
// The frames `cpcprof flamegraph` draws: a call tree (CallTree::top_down,
// or bottom_up for an icicle graph) laid out by lay_out_flame (siblings by
// name, frames too narrow to matter pruned), and what the renderers (SVG,
// HTML) need to name and colour each frame.
#pragma once

#include "profiler/analysis/flame_layout.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::analysis {

// How a frame is coloured.
enum class FrameKind : uint8_t {
    Code,     // a function with symbols
    Inlined,  // every call merged into the frame was inlined into its caller
    NoSymbol, // "module+0xoffset": the address has no symbols
    Root,     // the "all" frame under everything
};

struct Frame {
    uint32_t node = 0;   // CallTree node (0: the "all" root)
    int32_t parent = -1; // index in FlameModel::frames; -1 for the root
    uint32_t depth = 0;  // 0 for the root
    FrameKind kind = FrameKind::Code;
    uint64_t x = 0; // left edge in units of the first weight (after the siblings before it)
};

struct FlameModel {
    analysis::CallTree tree;
    // Pre-order: the root first, each frame before its children, siblings
    // sorted by function name (a picture does not depend on sample order).
    std::vector<Frame> frames;
    uint32_t max_depth = 0;
    size_t pruned = 0; // call tree nodes left out (narrower than the threshold)
};

// Keeps a node when, for some weight w in weights (-1: samples, else an
// event index), its total is at least min_share of the root's (weights
// whose root total is 0 are ignored).  Nodes with no weight at all are
// left out too.  Frame::x is in units of weights[0].
FlameModel build_model(const analysis::Query &q, bool inverted, const std::vector<int> &weights,
                       double min_share);

} // namespace cpcprof::analysis
