// SPDX-License-Identifier: MIT
// The flame-graph layout (flame_layout.h).
#include "profiler/analysis/flame_layout.h"

#include <algorithm>

namespace cpcprof::analysis {

std::string_view CallTreeFlame::name(uint32_t node) const {
    return q_.functions()[tree_.nodes()[node].function].name;
}

std::vector<uint32_t> flame_path(const FlameTree &tree, uint32_t node) {
    std::vector<uint32_t> path;
    for (uint32_t v = node; v != 0 && v < tree.nodes(); v = tree.parent(v))
        path.push_back(v);
    std::reverse(path.begin(), path.end());
    return path;
}

namespace {

// Which children are drawn and in which order.
class Siblings {
  public:
    Siblings(const FlameTree &tree, const FlameOptions &o) : tree_(tree), order_(o.order) {
        // The least weight kept, per weight: at least min_share of the
        // zoomed node's, and never nothing.
        for (size_t k = 0; k < tree.weights(); ++k) {
            double whole = double(tree.weight(o.zoom, k));
            least_.push_back(whole > 0 ? std::max(1.0, whole * o.min_share) : -1);
        }
    }

    const std::vector<uint32_t> &of(uint32_t node) {
        kept_.clear();
        for (uint32_t c : tree_.children(node))
            if (keep(c))
                kept_.push_back(c);
        if (order_ == SiblingOrder::ByName)
            std::sort(kept_.begin(), kept_.end(),
                      [&](uint32_t a, uint32_t b) { return by_name(a, b); });
        else if (order_ == SiblingOrder::ByCost)
            std::sort(kept_.begin(), kept_.end(), [&](uint32_t a, uint32_t b) {
                uint64_t wa = tree_.weight(a, 0), wb = tree_.weight(b, 0);
                return wa != wb ? wa > wb : by_name(a, b);
            });
        return kept_;
    }

  private:
    bool keep(uint32_t node) const {
        for (size_t k = 0; k < least_.size(); ++k)
            if (least_[k] > 0 && double(tree_.weight(node, k)) >= least_[k])
                return true;
        return false;
    }
    bool by_name(uint32_t a, uint32_t b) const {
        std::string_view na = tree_.name(a), nb = tree_.name(b);
        return na != nb ? na < nb : a < b;
    }

    const FlameTree &tree_;
    SiblingOrder order_;
    std::vector<double> least_;
    std::vector<uint32_t> kept_;
};

} // namespace

FlameLayout lay_out_flame(const FlameTree &tree, const FlameOptions &o) {
    FlameLayout out;
    if (o.zoom >= tree.nodes() || tree.weights() == 0)
        return out;
    const uint64_t whole = tree.weight(o.zoom, 0);
    // The root and the zoomed node's other ancestors, full width.
    std::vector<uint32_t> above = flame_path(tree, o.zoom);
    if (o.zoom != 0) {
        above.pop_back(); // the zoomed node itself
        above.insert(above.begin(), 0);
    }
    for (uint32_t a : above) {
        auto depth = uint32_t(out.places.size());
        out.places.push_back({a, int32_t(depth) - 1, depth, 0, whole, true});
    }
    // Depth-first with a stack of its own: trees may be thousands of
    // frames deep.  Children are pushed in reverse so that they pop in
    // order.
    struct Todo {
        uint32_t node;
        int32_t parent;
        uint32_t depth;
        uint64_t x;
    };
    std::vector<Todo> todo{{o.zoom, int32_t(above.size()) - 1, uint32_t(above.size()), 0}};
    Siblings siblings(tree, o);
    while (!todo.empty()) {
        Todo t = todo.back();
        todo.pop_back();
        auto index = int32_t(out.places.size());
        out.places.push_back({t.node, t.parent, t.depth, t.x, tree.weight(t.node, 0), false});
        out.max_depth = std::max(out.max_depth, t.depth);
        size_t first = todo.size();
        uint64_t x = t.x;
        for (uint32_t c : siblings.of(t.node)) {
            todo.push_back({c, index, t.depth + 1, x});
            x += tree.weight(c, 0);
        }
        std::reverse(todo.begin() + std::ptrdiff_t(first), todo.end());
    }
    return out;
}

} // namespace cpcprof::analysis
