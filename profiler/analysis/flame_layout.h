// SPDX-License-Identifier: MIT
// The one flame-graph layout, shared by every picture of a tree: the
// viewer's flame graph (one event, a zoomed node, siblings by cost,
// frames under a pixel left out), `cpcprof flamegraph`'s SVG and HTML
// (siblings by name, frames under a share of every weight left out) and
// `cpcprof diff`'s flame graph (call paths in key order).
//
// A frame's width is its node's first weight; the zoomed node spans the
// whole width and its ancestors are listed above it at full width (the
// way back out).  A node is kept when, for some weight k, it holds at
// least min_share of the zoomed node's k (weights the zoomed node lacks
// are ignored); a node left out takes its subtree with it, since a
// node's weights never exceed its parent's.  So the work is bounded by
// the frames drawn and their siblings, not by the tree.
#pragma once

#include "profiler/analysis/query.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace cpcprof::analysis {

// The tree a flame graph draws: node 0 is the root; a node's weights
// never exceed its parent's.
class FlameTree {
  public:
    virtual ~FlameTree() = default;
    virtual uint32_t parent(uint32_t node) const = 0; // node 0: 0
    virtual const std::vector<uint32_t> &children(uint32_t node) const = 0;
    virtual size_t nodes() const = 0;
    virtual size_t weights() const = 0;
    virtual uint64_t weight(uint32_t node, size_t k) const = 0; // k < weights()
    virtual std::string_view name(uint32_t node) const = 0;     // orders siblings
};

// A node's total of weight w: -1 the sample count, else an event index (0
// for an index the Query lacks).
inline uint64_t weight_of(const Cost &c, int w) {
    if (w < 0)
        return c.samples;
    return size_t(w) < c.values.size() ? c.values[size_t(w)] : 0;
}

// A CallTree weighed by events of its Query: weights[k] as in weight_of.
class CallTreeFlame final : public FlameTree {
  public:
    CallTreeFlame(const Query &q, const CallTree &tree, std::vector<int> weights)
        : q_(q), tree_(tree), weights_(std::move(weights)) {}
    uint32_t parent(uint32_t node) const override { return tree_.nodes()[node].parent; }
    const std::vector<uint32_t> &children(uint32_t node) const override {
        return tree_.nodes()[node].children;
    }
    size_t nodes() const override { return tree_.nodes().size(); }
    size_t weights() const override { return weights_.size(); }
    uint64_t weight(uint32_t node, size_t k) const override {
        return weight_of(tree_.nodes()[node].total, weights_[k]);
    }
    std::string_view name(uint32_t node) const override;

  private:
    const Query &q_;
    const CallTree &tree_;
    std::vector<int> weights_;
};

enum class SiblingOrder : uint8_t {
    Given,  // as FlameTree::children lists them
    ByName, // by name, then node: a picture does not depend on sample order
    ByCost, // by the first weight, largest first, then as ByName
};

struct FlameOptions {
    uint32_t zoom = 0; // the node that spans the width (0: the root)
    SiblingOrder order = SiblingOrder::ByName;
    double min_share = 0; // of the zoomed node's weight; see above
};

struct FlamePlace {
    uint32_t node = 0;
    int32_t parent = -1;   // index in FlameLayout::places; -1 for the root
    uint32_t depth = 0;    // the root's is 0
    uint64_t x = 0;        // left edge in first-weight units from the zoomed node's left edge
    uint64_t width = 0;    // first weight (ancestors: the zoomed node's)
    bool ancestor = false; // above the zoomed node
};

struct FlameLayout {
    // Pre-order: the root (and the zoomed node's other ancestors) first,
    // each node before its children, siblings in the order asked for and
    // packed left to right.
    std::vector<FlamePlace> places;
    uint32_t max_depth = 0;
};

FlameLayout lay_out_flame(const FlameTree &tree, const FlameOptions &o);

// The path from node 0's child down to node, root excluded (empty for 0).
std::vector<uint32_t> flame_path(const FlameTree &tree, uint32_t node);

} // namespace cpcprof::analysis
