// Search of the flame graph, without Qt: the functions whose name matches
// a substring or a regular expression (ECMAScript), and the cost of the
// samples that have a matching function anywhere on their stack, counted
// once per sample however many matching frames it has.  Runs off the GUI
// thread on a ProfilePtr.
#pragma once

#include "profiler/analysis/query.h"

#include <string>
#include <vector>

namespace cpcprof::gui {

struct SearchResult {
    std::string pattern;
    bool regex = false;
    std::string error;            // a regular expression that does not parse
    std::vector<bool> match;      // per Query::functions() index
    size_t matched_functions = 0; // count of true in match
    analysis::Cost cost;          // of the samples with a match on the stack
};

SearchResult search_functions(const analysis::Query &q, const std::string &pattern, bool regex);

} // namespace cpcprof::gui
