// CallTree (storage/include/storage/query.h), built from the Query's frame
// trie without recursion.
//
// Top-down and callees trees map each frame node to a tree node in index
// order (a frame node's parent comes first), put each stack's cost on its
// leaf's tree node, and sum totals up the tree from the last node to the
// first (a tree node's parent also comes first): O(frame nodes).
// Bottom-up and callers trees follow each stack (or each innermost
// occurrence) from its leaf towards the root; their size is bounded by
// kMaxReversedNodes, and the walk by a multiple of it.
#include "storage/query.h"

#include <string>

namespace cpcprof::storage {

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Frame nodes followed from leaf to root, at most this many in all.
constexpr uint64_t kMaxReversedSteps = uint64_t{32} * CallTree::kMaxReversedNodes;

std::string too_large(const char *what) {
    return std::string("the ") + what + " tree needs more than " +
           std::to_string(CallTree::kMaxReversedNodes) + " nodes or " +
           std::to_string(kMaxReversedSteps) +
           " steps (the profile's stacks are too deep and too varied); "
           "select fewer samples (--pid, --tid, --time) or use the top-down view";
}

} // namespace

CallTree::CallTree(const Query &q) : nevents_(q.events().size()) {
    nodes_.push_back(Node{});
    nodes_[0].self.values.assign(nevents_, 0);
    nodes_[0].total.values.assign(nevents_, 0);
}

uint32_t CallTree::child(uint32_t parent, const PathFrame &frame) {
    uint64_t key = uint64_t(parent) << 32 | frame.function;
    auto [it, fresh] = index_.try_emplace(key, uint32_t(nodes_.size()));
    if (fresh) {
        Node n;
        n.parent = parent;
        n.function = frame.function;
        n.depth = nodes_[parent].depth + 1;
        n.inlined = frame.inlined;
        n.self.values.assign(nevents_, 0);
        n.total.values.assign(nevents_, 0);
        nodes_.push_back(std::move(n));
        nodes_[parent].children.push_back(it->second);
    } else {
        nodes_[it->second].inlined = nodes_[it->second].inlined && frame.inlined;
    }
    return it->second;
}

// On entry each node's total holds the cost of the paths that end there.
void CallTree::sum_totals() {
    for (size_t i = nodes_.size(); i-- > 1;)
        nodes_[nodes_[i].parent].total.add(nodes_[i].total);
}

CallTree CallTree::top_down(const Query &q) {
    CallTree t(q);
    const auto &fn = q.frame_nodes();
    std::vector<uint32_t> at(fn.size(), 0);
    for (size_t v = 1; v < fn.size(); ++v)
        at[v] = t.child(at[fn[v].parent], fn[v].frame);
    for (size_t i = 0; i < q.stack_count(); ++i) {
        Node &n = t.nodes_[at[q.stack_leaf(i)]];
        n.self.add(q.stack_cost(i));
        n.total.add(q.stack_cost(i));
    }
    t.sum_totals();
    return t;
}

CallTree CallTree::callees(const Query &q, uint32_t fn) {
    CallTree t(q);
    const auto &f = q.frame_nodes();
    // at[v]: v's tree node when an occurrence of fn is at or above it.
    std::vector<uint32_t> at(f.size(), kNone);
    for (size_t v = 1; v < f.size(); ++v) {
        uint32_t up = at[f[v].parent];
        if (up != kNone)
            at[v] = t.child(up, f[v].frame);
        else if (f[v].frame.function == fn)
            at[v] = t.child(0, f[v].frame);
    }
    for (size_t i = 0; i < q.stack_count(); ++i) {
        uint32_t n = at[q.stack_leaf(i)];
        if (n == kNone)
            continue;
        t.nodes_[n].self.add(q.stack_cost(i));
        t.nodes_[n].total.add(q.stack_cost(i));
    }
    t.sum_totals();
    return t;
}

CallTree CallTree::bottom_up(const Query &q) {
    CallTree t(q);
    const auto &f = q.frame_nodes();
    uint64_t steps = 0;
    for (size_t i = 0; i < q.stack_count(); ++i) {
        uint32_t v = q.stack_leaf(i);
        steps += f[v].depth;
        if (steps > kMaxReversedSteps)
            throw TooLarge(too_large("bottom-up"));
        uint32_t root = t.child(0, f[v].frame), at = root;
        for (v = f[v].parent; v != 0; v = f[v].parent)
            at = t.child(at, f[v].frame);
        if (t.nodes_.size() > kMaxReversedNodes)
            throw TooLarge(too_large("bottom-up"));
        t.nodes_[root].self.add(q.stack_cost(i));
        t.nodes_[at].total.add(q.stack_cost(i));
    }
    t.sum_totals();
    return t;
}

CallTree CallTree::callers(const Query &q, uint32_t fn) {
    CallTree t(q);
    const auto &f = q.frame_nodes();
    // Per frame node: the cost of the stacks that end at it (own), and of
    // those that end at or below it with no occurrence of fn between
    // (below); for an occurrence of fn, below is the cost of the stacks
    // whose innermost occurrence it is.
    const size_t n = f.size();
    std::vector<Cost> own(n), below(n);
    for (size_t i = 0; i < q.stack_count(); ++i)
        own[q.stack_leaf(i)].add(q.stack_cost(i));
    for (size_t v = n; v-- > 1;) {
        below[v].add(own[v]);
        if (f[v].frame.function != fn && below[v].samples != 0)
            below[f[v].parent].add(below[v]);
    }
    uint64_t steps = 0;
    for (size_t v = 1; v < n; ++v) {
        if (f[v].frame.function != fn || below[v].samples == 0)
            continue;
        steps += f[v].depth;
        if (steps > kMaxReversedSteps)
            throw TooLarge(too_large("callers"));
        uint32_t root = t.child(0, f[v].frame), at = root;
        for (uint32_t u = f[v].parent; u != 0; u = f[u].parent)
            at = t.child(at, f[u].frame);
        if (t.nodes_.size() > kMaxReversedNodes)
            throw TooLarge(too_large("callers"));
        if (own[v].samples != 0)
            t.nodes_[root].self.add(own[v]);
        t.nodes_[at].total.add(below[v]);
    }
    t.sum_totals();
    return t;
}

} // namespace cpcprof::storage
