// SPDX-License-Identifier: MIT
// Call paths of two profiles matched, for every view that compares call
// trees (`cpcprof diff`'s flame graph, the viewer's comparison): each tree
// merged by call path, a frame keyed by (function name, module basename)
// as analysis::compare keys functions, and each call path of NEW found in
// BASE.  Values are summed per path for a chosen list of events, which
// may differ in index between the profiles (the common events).
//
//   PathKeys keys;                 // one for both profiles: same key, same id
//   auto now_keys = keys.of(now), base_keys = keys.of(base);
//   PathMatch m = match_paths(now_tree, now_keys, {e_now},   // NEW's event index
//                             base_tree, base_keys, {e_base}); // BASE's
//   m.now_self[m.path_of_node[node]];  // NEW's self of the node's call path
#pragma once

#include "profiler/analysis/query.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cpcprof::analysis {

// Ids of (function name, module basename) keys; one PathKeys keys both
// profiles, so that a function of either has the same id as its namesake.
class PathKeys {
  public:
    static constexpr uint32_t kNone = UINT32_MAX;

    // Per function of q (Query::functions() index), its key's id; a key
    // not seen before gets the next id.
    std::vector<uint32_t> of(const Query &q);
    // The id of (name, module basename), kNone when no function has it.
    uint32_t find(const std::string &name, const std::string &module) const;
    const std::string &name(uint32_t id) const { return keys_[id]->first; }
    const std::string &module(uint32_t id) const { return keys_[id]->second; }
    size_t size() const { return keys_.size(); }

  private:
    using Key = std::pair<std::string, std::string>;
    struct Hash {
        size_t operator()(const Key &k) const;
    };
    std::unordered_map<Key, uint32_t, Hash> ids_;
    std::vector<const Key *> keys_; // by id; the map's nodes do not move
};

// NEW's tree merged by call path and matched in BASE's.  Path 0 is the
// root (node 0, the total); a path's parent has a smaller index.  Values
// of path p and the i-th event asked for are at [p * events + i].  Empty
// (default) when nothing was matched.
struct PathMatch {
    size_t events = 0;                           // values per path
    std::vector<uint32_t> path_of_node;          // per NEW tree node: its path (0: node 0)
    std::vector<uint32_t> parent, key;           // per path (path 0: 0 and PathKeys::kNone)
    std::vector<uint64_t> now_self, now_total;   // per path, NEW's values
    std::vector<uint64_t> base_self, base_total; // per path, BASE's values (0: not in BASE)
    std::vector<uint8_t> in_base;                // per path: BASE has this call path

    size_t paths() const { return parent.size(); }
};

// Merges both trees by call path and matches them.  *_keys: a PathKeys id
// per function of the tree's Query; *_events: per value kept, the event's
// index in that Query (the same count on both sides).  Sums saturate
// (saturating_add).  O(nodes of both trees).
PathMatch match_paths(const CallTree &now, const std::vector<uint32_t> &now_keys,
                      const std::vector<int> &now_events, const CallTree &base,
                      const std::vector<uint32_t> &base_keys, const std::vector<int> &base_events);

// Per path, its children sorted by (name, module basename): the siblings'
// order of a reproducible picture.
std::vector<std::vector<uint32_t>> children_by_key(const PathMatch &m, const PathKeys &keys);

} // namespace cpcprof::analysis
