// SPDX-License-Identifier: MIT
#include "profiler/analysis/search.h"

#include <cctype>

namespace cpcprof::analysis {

namespace {

std::string lower(std::string s) {
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

std::optional<NameMatcher> NameMatcher::make(const std::string &pattern, bool regex,
                                             std::string *error) {
    NameMatcher m;
    if (!regex) {
        m.pattern_ = lower(pattern);
        return m;
    }
    m.pattern_ = pattern;
    if (pattern.empty())
        return m;
    try {
        m.regex_.emplace(pattern, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error &e) {
        *error = "invalid regular expression '" + pattern + "': " + e.what();
        return std::nullopt;
    }
    return m;
}

bool NameMatcher::matches(const std::string &name) const {
    if (pattern_.empty())
        return true;
    if (regex_)
        return std::regex_search(name, *regex_);
    return lower(name).find(pattern_) != std::string::npos;
}

std::optional<double> SearchResult::share(const Query &q, int event) const {
    size_t e = size_t(event);
    if (e >= q.total().values.size() || q.total().values[e] == 0 || e >= total.values.size())
        return std::nullopt;
    return double(total.values[e]) / double(q.total().values[e]);
}

SearchResult search(const Query &q, const NameMatcher &m) {
    SearchResult r;
    const auto &fns = q.functions();
    r.function_matches.resize(fns.size());
    for (uint32_t f = 0; f < fns.size(); ++f) {
        r.function_matches[f] = m.matches(fns[f].name);
        if (r.function_matches[f] && !q.function_total()[f].empty())
            r.functions.push_back(f);
    }
    // One key, "a match": once_per_stack counts a stack once however many
    // of its frames match.
    const auto &nodes = q.frame_nodes();
    std::vector<uint32_t> key(nodes.size(), Query::kNoKey);
    for (size_t v = 1; v < nodes.size(); ++v)
        if (r.function_matches[nodes[v].frame.function])
            key[v] = 0;
    std::vector<Cost> costs = q.once_per_stack(key, 1);
    r.total = costs.empty() ? Cost{} : std::move(costs[0]);
    r.total.values.resize(q.events().size());
    return r;
}

SearchResult search(const Query &q, const std::string &pattern, bool regex) {
    std::string error;
    std::optional<NameMatcher> m = NameMatcher::make(pattern, regex, &error);
    SearchResult r;
    if (m) {
        r = search(q, *m);
    } else {
        r.error = std::move(error);
        r.function_matches.assign(q.functions().size(), false);
        r.total.values.assign(q.events().size(), 0);
    }
    r.pattern = pattern;
    r.regex = regex;
    return r;
}

} // namespace cpcprof::analysis
