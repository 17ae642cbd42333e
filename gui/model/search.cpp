#include "gui/model/search.h"

#include <algorithm>
#include <cctype>

namespace cpcprof::gui {

using analysis::Query;

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
        if (r.function_matches[f] && q.function_total()[f].samples != 0)
            r.functions.push_back(f);
    }
    // One key, "a match": once_per_stack counts a stack once however many
    // of its frames match.
    const auto &nodes = q.frame_nodes();
    std::vector<uint32_t> key(nodes.size(), Query::kNoKey);
    for (size_t v = 1; v < nodes.size(); ++v)
        if (r.function_matches[nodes[v].frame.function])
            key[v] = 0;
    std::vector<analysis::Cost> costs = q.once_per_stack(key, 1);
    r.total = costs.empty() ? analysis::Cost{} : std::move(costs[0]);
    r.total.values.resize(q.events().size());
    return r;
}

std::vector<uint8_t> keep_nodes(const CostTree &t, const std::vector<bool> &function_matches) {
    std::vector<uint8_t> keep(t.size(), 0);
    // A node's parent has a smaller index: one backward pass.
    for (size_t n = t.size(); n-- > 1;) {
        uint32_t f = t.node(uint32_t(n)).function;
        if (f < function_matches.size() && function_matches[f])
            keep[n] = 1;
        if (keep[n])
            keep[t.node(uint32_t(n)).parent] = 1;
    }
    return keep;
}

std::vector<uint8_t> matching_nodes(const CostTree &t, const std::vector<bool> &function_matches) {
    std::vector<uint8_t> match(t.size(), 0);
    for (uint32_t n = 1; n < t.size(); ++n) {
        uint32_t f = t.node(n).function;
        match[n] = f < function_matches.size() && function_matches[f];
    }
    return match;
}

analysis::Cost matched_total(const CostTree &t, const std::vector<bool> &function_matches,
                             uint32_t under) {
    analysis::Cost sum;
    if (!t.tree || under >= t.size())
        return sum;
    sum.values.assign(t.node(0).total.values.size(), 0);
    // Depth first from `under`, not below a match: no recursion, a stack
    // of nodes to visit.
    std::vector<uint32_t> todo(t.node(under).children.rbegin(), t.node(under).children.rend());
    while (!todo.empty()) {
        uint32_t n = todo.back();
        todo.pop_back();
        uint32_t f = t.node(n).function;
        if (f < function_matches.size() && function_matches[f]) {
            sum.add(t.node(n).total);
            continue;
        }
        const auto &ch = t.node(n).children;
        todo.insert(todo.end(), ch.rbegin(), ch.rend());
    }
    return sum;
}

} // namespace cpcprof::gui
