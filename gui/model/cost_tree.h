// SPDX-License-Identifier: MIT
// A call tree ready for the views, without Qt: the analysis CallTree
// (nodes merged by function, self and total cost of every event per node)
// with the profile that names its functions.  Immutable once made; shared
// between threads by pointer.
//
//   CostTree t = top_down_tree(profile);      // shares profile's tree
//   t.node(t.child(0, 0)).total.values[e];     // first root's total
#pragma once

#include "gui/model/profile_data.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cpcprof::analysis {
struct PathMatch; // profiler/analysis/path_match.h
} // namespace cpcprof::analysis

namespace cpcprof::gui {

struct CostTree {
    // Keeps the profile (and so the Query that names functions) alive.
    ProfilePtr profile;
    std::shared_ptr<const analysis::CallTree> tree; // nullptr: none (see error)
    std::string error; // why there is no tree (TooLarge, no such function)
    // While comparing: a callers or callees tree's call paths matched in
    // the base (match_function_tree); nullptr otherwise.
    std::shared_ptr<const analysis::PathMatch> base_match;

    size_t size() const { return tree ? tree->nodes().size() : 0; }
    const analysis::CallTree::Node &node(uint32_t n) const { return tree->nodes()[n]; }
    // Node 0 is the invisible root of roots.
    size_t child_count(uint32_t n) const { return tree ? node(n).children.size() : 0; }
    uint32_t child(uint32_t n, size_t i) const { return node(n).children[i]; }
    const std::string &name(uint32_t n) const;
};

// The profile's top-down and bottom-up trees (shared, not copied); an
// empty tree with the error when the profile has none.
CostTree top_down_tree(const ProfilePtr &profile);
// The top-down tree with recursion collapsed (CallTree::top_down's
// collapse_recursion), built now: O(frame nodes).
CostTree collapsed_top_down_tree(const ProfilePtr &profile);
CostTree bottom_up_tree(const ProfilePtr &profile);
// The callers (root fn, children its callers) and callees (root fn,
// children its callees) of function fn, built now: O(frame nodes).
CostTree callers_tree(const ProfilePtr &profile, uint32_t fn);
CostTree callees_tree(const ProfilePtr &profile, uint32_t fn);

// The node of function fn with the largest total samples (ties: the
// first made); 0 when fn is in no node.
uint32_t heaviest_node(const CostTree &t, uint32_t fn);

// The nodes from a root down to n (root first, n last; empty for 0).
std::vector<uint32_t> path_to(const CostTree &t, uint32_t n);

} // namespace cpcprof::gui
