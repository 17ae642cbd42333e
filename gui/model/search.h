// SPDX-License-Identifier: MIT
// Search in the viewer's trees, without Qt: which nodes of a tree to keep
// so that every match of a name search (profiler/analysis/search.h) shows
// with its ancestors, which nodes to highlight, and the cost of the
// matches below a node.
#pragma once

#include "gui/model/cost_tree.h"
#include "profiler/analysis/search.h"

#include <vector>

namespace cpcprof::gui {

using analysis::NameMatcher;
using analysis::search;
using analysis::SearchResult;

// Per node of t: 1 when its function matches or a descendant's does.
std::vector<uint8_t> keep_nodes(const CostTree &t, const std::vector<bool> &function_matches);

// Per node of t: 1 when its function matches (the frames a flame graph
// highlights).
std::vector<uint8_t> matching_nodes(const CostTree &t, const std::vector<bool> &function_matches);

// The cost of the samples below node `under` (0: the whole tree) with a
// match on their path, each counted once: the sum of the totals of the
// matching nodes that have no matching ancestor below `under`.  For
// under = 0 it equals search()'s total (a tree's path is a sample's stack),
// except that the "[truncated]" node of a tree stands for no frame.
analysis::Cost matched_total(const CostTree &t, const std::vector<bool> &function_matches,
                             uint32_t under = 0);

} // namespace cpcprof::gui
