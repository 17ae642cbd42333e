// SPDX-License-Identifier: MIT
// Search over function names, shared by every view that searches (the
// viewer's tables and its flame graph): which functions match a substring
// or a regular expression, and the cost of the samples with a match on
// their stack, counted once per sample however many matching frames the
// stack holds (nested or recursive).  Case is ignored in both forms.
#pragma once

#include "profiler/analysis/query.h"

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace cpcprof::analysis {

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
    std::string pattern;
    bool regex = false;
    std::string error;                  // a regular expression that does not parse
    std::vector<bool> function_matches; // per Query::functions()
    std::vector<uint32_t> functions;    // the matching functions that have samples
    Cost total;                         // samples with a match on the stack, once each
    // total's share of the kept total of event; nothing when that is 0.
    std::optional<double> share(const Query &q, int event) const;
};

SearchResult search(const Query &q, const NameMatcher &m);

// make() then search(); a pattern that does not parse gives a result with
// error set and nothing matched.
SearchResult search(const Query &q, const std::string &pattern, bool regex);

} // namespace cpcprof::analysis
