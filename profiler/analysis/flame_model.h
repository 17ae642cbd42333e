// SPDX-License-Identifier: MIT
// The frames a flame graph draws: a call tree (CallTree::top_down, or
// bottom_up for an icicle graph) in drawing order, frames too narrow to
// matter pruned, and what the renderers (SVG, HTML) need to name and
// colour each frame.
#pragma once

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
// left out too.
FlameModel build_model(const analysis::Query &q, bool inverted, const std::vector<int> &weights,
                       double min_share);

// A node's total for weight w (-1: samples).
inline uint64_t weight_of(const analysis::Cost &c, int w) {
    return w < 0 ? c.samples : c.values[size_t(w)];
}

} // namespace cpcprof::analysis
