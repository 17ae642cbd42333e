#include "gui/model/flame_search.h"

#include <regex>

namespace cpcprof::gui {

SearchResult search_functions(const analysis::Query &q, const std::string &pattern, bool regex) {
    SearchResult r;
    r.pattern = pattern;
    r.regex = regex;
    const auto &functions = q.functions();
    r.match.assign(functions.size(), false);
    r.cost.values.assign(q.events().size(), 0);
    if (pattern.empty())
        return r;
    std::regex re;
    if (regex) {
        try {
            re = std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error &e) {
            r.error = "bad regular expression '" + pattern + "': " + e.what();
            return r;
        }
    }
    for (size_t f = 0; f < functions.size(); ++f) {
        const std::string &name = functions[f].name;
        bool hit = regex ? std::regex_search(name, re) : name.find(pattern) != std::string::npos;
        r.match[f] = hit;
        r.matched_functions += hit;
    }
    if (r.matched_functions == 0)
        return r;
    const auto &frames = q.frame_nodes();
    std::vector<uint32_t> key_of(frames.size(), analysis::Query::kNoKey);
    for (size_t v = 1; v < frames.size(); ++v)
        if (r.match[frames[v].frame.function])
            key_of[v] = 0;
    r.cost = q.once_per_stack(key_of, 1).at(0);
    return r;
}

} // namespace cpcprof::gui
