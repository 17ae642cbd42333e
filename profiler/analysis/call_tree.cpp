// SPDX-License-Identifier: MIT
// CallTree (profiler/analysis/query.h), built from the Query's frame
// trie without recursion.
//
// Top-down and callees trees map each frame node to a tree node in index
// order (a frame node's parent comes first), put each stack's cost on its
// leaf's tree node, and sum totals up the tree from the last node to the
// first (a tree node's parent also comes first): O(frame nodes).
// Bottom-up and callers trees hold the stacks read from the leaf (or the
// innermost occurrence) towards the root: a node per distinct suffix of
// the top-down call paths, which can be far more than the file holds
// (bounded by kMaxReversedNodes), or far fewer (recursion: the suffixes of
// f;f;...;f are one chain).  Reversed::node finds each from the suffix one
// shorter, so the work follows the suffixes, not the stacks' depths; but
// the trie of call paths then holds every prefix of every suffix, which
// for one deep chain of distinct functions is the square of its depth.
// So a tree whose stacks' depths sum to at most kDirectSteps is built by
// walking each stack from its leaf (that sum of steps), and only a larger
// one (many deep stacks: recursion) through the suffixes, both bounded.
#include "profiler/analysis/query.h"

#include "base/flat_map.h"

#include <string>

namespace cpcprof::analysis {

// The file's records, read through storage's Reader and StackLocator.
using namespace storage;

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Frame nodes followed from leaves to the root by the direct walk.
constexpr uint64_t kDirectSteps = uint64_t{32} * CallTree::kMaxReversedNodes;
// Call paths hashed by the suffix walk.
constexpr size_t kMaxPaths = 4 * CallTree::kMaxReversedNodes;

std::string too_large(const char *what) {
    return std::string("the ") + what + " tree needs more than " +
           std::to_string(CallTree::kMaxReversedNodes) +
           " nodes (the profile's stacks are deep and varied); select fewer samples "
           "(--pid, --tid, --time) or use the top-down view";
}

// Call paths (function sequences from the root, inlined or not) hashed
// into a trie, and for each path the node of a reversed tree that reads
// it from its end: rev(a1..ak) = child(rev(a2..ak), a1).
class Reversed {
  public:
    explicit Reversed(const char *what) : what_(what) {}

    uint32_t path_child(uint32_t parent, const PathFrame &f) {
        uint64_t key = uint64_t(parent) << 33 | uint64_t(f.function) << 1 | (f.inlined ? 1 : 0);
        if (const uint32_t *hit = index_.find(key))
            return *hit;
        PathNode n{parent, f, paths_[parent].depth + 1, kNone, kNone, f};
        if (parent != 0)
            n.first = paths_[parent].first;
        if (paths_.size() >= kMaxPaths)
            throw TooLarge(too_large(what_));
        const uint32_t id = uint32_t(paths_.size());
        paths_.push_back(n);
        index_.insert(key, id);
        return id;
    }

    // The reversed tree's node for path p, made in tree t with what leads to it.
    template <typename Tree> uint32_t node(Tree &t, uint32_t p) {
        todo_.clear();
        for (uint32_t x = p; paths_[x].rev == kNone; x = drop_first(x))
            todo_.push_back(x);
        for (size_t i = todo_.size(); i-- > 0;) {
            uint32_t x = todo_[i];
            uint32_t below = paths_[drop_first(x)].rev;
            paths_[x].rev = t.child(below, paths_[x].first);
        }
        if (t.size() > CallTree::kMaxReversedNodes)
            throw TooLarge(too_large(what_));
        return paths_[p].rev;
    }

  private:
    struct PathNode {
        uint32_t parent = 0;
        PathFrame frame;
        uint32_t depth = 0;
        uint32_t drop = kNone; // the path without its first frame
        uint32_t rev = kNone;  // the reversed tree's node
        PathFrame first;       // the path's first frame
    };

    // Walks up to the first path whose drop is known, then down.
    uint32_t drop_first(uint32_t p) {
        up_.clear();
        for (uint32_t x = p; paths_[x].drop == kNone; x = paths_[x].parent)
            up_.push_back(x);
        for (size_t i = up_.size(); i-- > 0;) {
            uint32_t x = up_[i];
            PathNode n = paths_[x];
            uint32_t d = n.depth == 1 ? 0 : path_child(paths_[n.parent].drop, n.frame);
            paths_[x].drop = d;
        }
        return paths_[p].drop;
    }

    const char *what_;
    std::vector<PathNode> paths_{PathNode{0, {}, 0, 0, 0, {}}}; // [0]: the empty path
    base::FlatMap index_; // (parent << 33 | function << 1 | inlined) -> path
    std::vector<uint32_t> todo_, up_;
};

// The nodes of a tree as they are made; the index of (parent, function)
// lives as long as the building.
class TreeBuilder {
  public:
    using Node = CallTree::Node;

    // collapse: a frame of the function of its parent node is that node.
    explicit TreeBuilder(const Query &q, bool collapse = false)
        : nevents_(q.events().size()), collapse_(collapse) {
        nodes_.push_back(Node{});
        nodes_[0].self.values.assign(nevents_, 0);
        nodes_[0].total.values.assign(nevents_, 0);
    }

    Node &operator[](uint32_t node) { return nodes_[node]; }
    size_t size() const { return nodes_.size(); }

    // parent's child for frame, made if new.
    uint32_t child(uint32_t parent, const PathFrame &frame) {
        if (collapse_ && parent != 0 && nodes_[parent].function == frame.function)
            return parent;
        uint64_t key = uint64_t(parent) << 32 | frame.function;
        if (const uint32_t *hit = index_.find(key)) {
            nodes_[*hit].inlined = nodes_[*hit].inlined && frame.inlined;
            return *hit;
        }
        const uint32_t id = uint32_t(nodes_.size());
        Node n;
        n.parent = parent;
        n.function = frame.function;
        n.depth = nodes_[parent].depth + 1;
        n.inlined = frame.inlined;
        n.self.values.assign(nevents_, 0);
        n.total.values.assign(nevents_, 0);
        nodes_.push_back(std::move(n));
        nodes_[parent].children.push_back(id);
        index_.insert(key, id);
        return id;
    }

    // The node of frame node v's path read from v to the root, made.
    uint32_t walk_up(uint32_t v, const std::vector<Query::FrameNode> &f, const char *what) {
        uint32_t at = 0;
        for (; v != 0; v = f[v].parent)
            at = child(at, f[v].frame);
        if (nodes_.size() > CallTree::kMaxReversedNodes)
            throw TooLarge(too_large(what));
        return at;
    }

    // The nodes, with every total summed up the tree from the costs of the
    // paths that end at each node (what each total holds until then).
    std::vector<Node> finish() && {
        for (size_t i = nodes_.size(); i-- > 1;)
            nodes_[nodes_[i].parent].total.add(nodes_[i].total);
        return std::move(nodes_);
    }

  private:
    size_t nevents_;
    bool collapse_ = false;
    std::vector<Node> nodes_;
    base::FlatMap index_; // (parent << 32 | function) -> node
};

} // namespace

CallTree CallTree::top_down(const Query &q, bool truncated_root, bool collapse_recursion) {
    TreeBuilder t(q, collapse_recursion);
    const auto &fn = q.frame_nodes();
    const uint32_t marker = q.truncated_function();
    if (!truncated_root || marker == Query::kNoFunction) {
        std::vector<uint32_t> at(fn.size(), 0);
        for (size_t v = 1; v < fn.size(); ++v)
            at[v] = t.child(at[fn[v].parent], fn[v].frame);
        for (size_t i = 0; i < q.stack_count(); ++i) {
            Node &n = t[at[q.stack_leaf(i)]];
            n.self.add(q.stack_cost(i));
            n.total.add(q.stack_cost(i));
        }
        return CallTree(std::move(t).finish());
    }
    // Cut stacks under the marker, the others as they are: a frame node
    // may be on both kinds, so each kind maps it on its own (at[kind][v]),
    // from a stack's leaf up to the first node already mapped, then down;
    // each frame node is mapped at most once per kind, and only frame nodes
    // some stack of that kind reaches make tree nodes.
    std::vector<uint32_t> at[2] = {std::vector<uint32_t>(fn.size(), kNone),
                                   std::vector<uint32_t>(fn.size(), kNone)};
    at[0][0] = 0;
    at[1][0] = t.child(0, PathFrame{marker, 0, 0, false});
    std::vector<uint32_t> up;
    for (size_t i = 0; i < q.stack_count(); ++i) {
        std::vector<uint32_t> &map = at[q.stack_truncated(i) ? 1 : 0];
        up.clear();
        for (uint32_t v = q.stack_leaf(i); map[v] == kNone; v = fn[v].parent)
            up.push_back(v);
        for (size_t k = up.size(); k-- > 0;)
            map[up[k]] = t.child(map[fn[up[k]].parent], fn[up[k]].frame);
        Node &n = t[map[q.stack_leaf(i)]];
        n.self.add(q.stack_cost(i));
        n.total.add(q.stack_cost(i));
    }
    return CallTree(std::move(t).finish());
}

CallTree CallTree::callees(const Query &q, uint32_t fn) {
    TreeBuilder t(q);
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
        t[n].self.add(q.stack_cost(i));
        t[n].total.add(q.stack_cost(i));
    }
    return CallTree(std::move(t).finish());
}

CallTree CallTree::bottom_up(const Query &q, bool truncated_root) {
    TreeBuilder t(q);
    const uint32_t marker = truncated_root ? q.truncated_function() : Query::kNoFunction;
    const auto &f = q.frame_nodes();
    uint64_t steps = 0;
    for (size_t i = 0; i < q.stack_count(); ++i)
        steps += f[q.stack_leaf(i)].depth;
    Reversed rev("bottom-up");
    std::vector<uint32_t> path;
    if (steps > kDirectSteps) {
        path.assign(f.size(), 0);
        for (size_t v = 1; v < f.size(); ++v)
            path[v] = rev.path_child(path[f[v].parent], f[v].frame);
    }
    for (size_t i = 0; i < q.stack_count(); ++i) {
        uint32_t leaf = q.stack_leaf(i);
        uint32_t end = path.empty() ? t.walk_up(leaf, f, "bottom-up") : rev.node(t, path[leaf]);
        if (marker != Query::kNoFunction && q.stack_truncated(i))
            end = t.child(end, PathFrame{marker, 0, 0, false}); // above the outermost frame
        t[t.child(0, f[leaf].frame)].self.add(q.stack_cost(i));
        t[end].total.add(q.stack_cost(i));
    }
    return CallTree(std::move(t).finish());
}

CallTree CallTree::callers(const Query &q, uint32_t fn) {
    TreeBuilder t(q);
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
        if (f[v].frame.function != fn && !below[v].empty())
            below[f[v].parent].add(below[v]);
    }
    uint64_t steps = 0;
    for (size_t v = 1; v < n; ++v)
        if (f[v].frame.function == fn && !below[v].empty())
            steps += f[v].depth;
    Reversed rev("callers");
    std::vector<uint32_t> path;
    if (steps > kDirectSteps)
        path.assign(n, 0);
    for (size_t v = 1; v < n; ++v) {
        if (!path.empty())
            path[v] = rev.path_child(path[f[v].parent], f[v].frame);
        if (f[v].frame.function != fn || below[v].empty())
            continue;
        uint32_t end = path.empty() ? t.walk_up(uint32_t(v), f, "callers") : rev.node(t, path[v]);
        if (!own[v].empty())
            t[t.child(0, f[v].frame)].self.add(own[v]);
        t[end].total.add(below[v]);
    }
    return CallTree(std::move(t).finish());
}

} // namespace cpcprof::analysis
