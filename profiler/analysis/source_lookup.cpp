// SPDX-License-Identifier: MIT
#include "profiler/analysis/source_lookup.h"

#include <algorithm>

namespace cpcprof::analysis {

std::vector<std::string> source_candidates(const std::string &path,
                                           const std::vector<std::string> &dirs) {
    std::vector<std::string> out;
    auto add = [&](const std::string &p) {
        if (std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
    };
    std::string rel = path.substr(std::min(path.find_first_not_of('/'), path.size()));
    for (std::string dir : dirs) {
        while (dir.size() > 1 && dir.back() == '/')
            dir.pop_back();
        std::string base = dir == "/" ? dir : dir + "/";
        for (std::string rest = rel; !rest.empty();) {
            add(base + rest);
            size_t slash = rest.find('/');
            if (slash == std::string::npos)
                break;
            size_t next = rest.find_first_not_of('/', slash);
            if (next == std::string::npos)
                break;
            rest = rest.substr(next);
        }
    }
    if (!path.empty())
        add(path);
    return out;
}

} // namespace cpcprof::analysis
