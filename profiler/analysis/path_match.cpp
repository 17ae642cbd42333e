// SPDX-License-Identifier: MIT
// Call paths of two trees merged by (name, module basename) and matched
// (path_match.h).
#include "profiler/analysis/path_match.h"

#include "profiler/analysis/table_format.h" // basename_of, as analysis::compare keys modules

#include <algorithm>
#include <functional>
#include <tuple>

namespace cpcprof::analysis {

namespace {

constexpr uint32_t kNone = PathKeys::kNone;

// A tree merged by call paths of keys; values per event asked for.
struct Paths {
    size_t events = 0;
    std::vector<uint32_t> path_of_node, parent, key;
    std::unordered_map<uint64_t, uint32_t> child; // parent path << 32 | key -> path
    std::vector<uint64_t> self, total;

    uint32_t find(uint32_t parent_path, uint32_t k) const {
        auto it = child.find(uint64_t(parent_path) << 32 | k);
        return it == child.end() ? kNone : it->second;
    }
};

void add_values(std::vector<uint64_t> *into, size_t at, const Cost &c,
                const std::vector<int> &events) {
    for (size_t e = 0; e < events.size(); ++e)
        (*into)[at + e] = saturating_add((*into)[at + e], c.values[size_t(events[e])]);
}

// A node's parent is made before it, so one pass in index order maps
// parents first.
Paths merge(const CallTree &t, const std::vector<uint32_t> &key_of_fn,
            const std::vector<int> &events) {
    Paths p;
    p.events = events.size();
    const auto &nodes = t.nodes();
    p.path_of_node.assign(nodes.size(), 0);
    p.parent.push_back(0);
    p.key.push_back(kNone);
    p.self.assign(p.events, 0);
    p.total.assign(p.events, 0);
    add_values(&p.total, 0, nodes[0].total, events);
    for (size_t i = 1; i < nodes.size(); ++i) {
        const CallTree::Node &n = nodes[i];
        uint32_t parent = p.path_of_node[n.parent], k = key_of_fn[n.function];
        auto [it, made] = p.child.emplace(uint64_t(parent) << 32 | k, uint32_t(p.parent.size()));
        if (made) {
            p.parent.push_back(parent);
            p.key.push_back(k);
            p.self.resize(p.self.size() + p.events, 0);
            p.total.resize(p.total.size() + p.events, 0);
        }
        p.path_of_node[i] = it->second;
        add_values(&p.self, size_t(it->second) * p.events, n.self, events);
        add_values(&p.total, size_t(it->second) * p.events, n.total, events);
    }
    return p;
}

} // namespace

size_t PathKeys::Hash::operator()(const Key &k) const {
    size_t h = std::hash<std::string>()(k.first);
    // boost::hash_combine's mixing.
    return h ^ (std::hash<std::string>()(k.second) + 0x9e3779b9 + (h << 6) + (h >> 2));
}

std::vector<uint32_t> PathKeys::of(const Query &q) {
    std::vector<uint32_t> out;
    out.reserve(q.functions().size());
    for (const FunctionInfo &f : q.functions()) {
        auto [it, made] = ids_.emplace(Key{f.name, basename_of(f.module)}, uint32_t(keys_.size()));
        if (made)
            keys_.push_back(&it->first);
        out.push_back(it->second);
    }
    return out;
}

uint32_t PathKeys::find(const std::string &name, const std::string &module) const {
    auto it = ids_.find(Key{name, module});
    return it == ids_.end() ? kNone : it->second;
}

PathMatch match_paths(const CallTree &now, const std::vector<uint32_t> &now_keys,
                      const std::vector<int> &now_events, const CallTree &base,
                      const std::vector<uint32_t> &base_keys, const std::vector<int> &base_events) {
    Paths n = merge(now, now_keys, now_events), b = merge(base, base_keys, base_events);
    PathMatch m;
    size_t ne = n.events, paths = n.parent.size();
    m.events = ne;
    m.path_of_node = std::move(n.path_of_node);
    m.now_self = std::move(n.self);
    m.now_total = std::move(n.total);
    m.base_self.assign(paths * ne, 0);
    m.base_total.assign(paths * ne, 0);
    m.in_base.assign(paths, 0);
    // Per path, the same call path in BASE: found under its parent's.
    std::vector<uint32_t> in_base(paths, kNone);
    in_base[0] = 0;
    for (size_t p = 0; p < paths; ++p) {
        if (p != 0 && in_base[n.parent[p]] != kNone)
            in_base[p] = b.find(in_base[n.parent[p]], n.key[p]);
        if (in_base[p] == kNone)
            continue;
        m.in_base[p] = 1;
        std::copy_n(b.self.begin() + ptrdiff_t(size_t(in_base[p]) * ne), ne,
                    m.base_self.begin() + ptrdiff_t(p * ne));
        std::copy_n(b.total.begin() + ptrdiff_t(size_t(in_base[p]) * ne), ne,
                    m.base_total.begin() + ptrdiff_t(p * ne));
    }
    m.parent = std::move(n.parent);
    m.key = std::move(n.key);
    return m;
}

std::vector<std::vector<uint32_t>> children_by_key(const PathMatch &m, const PathKeys &keys) {
    std::vector<std::vector<uint32_t>> out(m.paths());
    for (uint32_t p = 1; p < m.paths(); ++p)
        out[m.parent[p]].push_back(p);
    // Siblings have distinct keys, so the order is total.
    for (std::vector<uint32_t> &kids : out)
        std::sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
            uint32_t ka = m.key[a], kb = m.key[b];
            return std::tie(keys.name(ka), keys.module(ka)) <
                   std::tie(keys.name(kb), keys.module(kb));
        });
    return out;
}

} // namespace cpcprof::analysis
