// Search over function names, without Qt: which functions match a
// substring or a regular expression, the cost of the samples with a match
// on their stack (counted once per sample however many matching frames
// the stack holds, nested or recursive), and which nodes of a tree to
// keep so that every match shows with its ancestors.
#pragma once

#include "gui/model/cost_tree.h"
#include "profiler/analysis/query.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace cpcprof::gui {

class NameMatcher {
  public:
    // Substrings match case-insensitively; a regular expression
    // (ECMAScript) matches anywhere in the name, case-insensitively.
    // nullopt with *error naming the problem when pattern is not a valid
    // expression.  An empty pattern matches every name.
    static std::optional<NameMatcher> make(const std::string &pattern, bool regex,
                                           std::string *error);
    bool matches(const std::string &name) const;
    bool empty() const { return pattern_.empty(); }

  private:
    std::string pattern_; // lowercased for substrings
    std::optional<std::regex> regex_;
};

struct SearchResult {
    std::vector<bool> function_matches; // per Query::functions()
    std::vector<uint32_t> functions;    // the matching functions that have samples
    analysis::Cost total;               // samples with a match on the stack, once each
    // total's share of the kept total of event; nothing when that is 0.
    std::optional<double> share(const analysis::Query &q, int event) const;
};

SearchResult search(const analysis::Query &q, const NameMatcher &m);

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
