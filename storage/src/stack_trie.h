// SPDX-License-Identifier: MIT
// The writer's in-memory copy of the stack trie: interns a stack (leaf
// first) as a path of (parent, address) nodes from the virtual root 0 and
// says which nodes are new, so that only those are written.
#pragma once

#include "storage/records.h"

#include <cstdint>
#include <span>
#include <vector>

namespace cpcprof::storage {

class StackTrie {
  public:
    StackTrie();

    // The node of frames[0] for the stack frames (leaf first); 0 if frames
    // is empty.  Nodes it creates get the next ids (1, 2, ...) and are
    // appended to *created outermost first, so a parent always precedes its
    // children and has a smaller id.
    uint64_t intern(std::span<const uint64_t> frames, std::vector<uint64_t> *created);

    const StackNode &node(uint64_t id) const { return nodes_[id]; }
    // Number of nodes, the virtual root not counted.
    uint64_t size() const { return nodes_.size() - 1; }

  private:
    uint64_t child(uint64_t parent, uint64_t address, std::vector<uint64_t> *created);
    void rehash(size_t slot_count);
    uint64_t *cached(std::span<const uint64_t> frames, uint64_t hash);
    void remember(std::span<const uint64_t> frames, uint64_t hash, uint64_t leaf);

    std::vector<StackNode> nodes_; // index = id; [0] = the virtual root
    // Open addressing, linear probing: node ids keyed by (parent, address);
    // 0 = empty slot.  Kept at most half full.
    std::vector<uint64_t> slots_;

    // Whole stacks seen recently -> their leaf node.  Most samples repeat a
    // stack seen before; this costs them one hash and one comparison instead
    // of a hash-table probe per frame (45 dependent cache misses on a deep
    // stack).  Direct-mapped; the frames live in an arena that is cleared
    // when it fills, which bounds the memory.
    struct CachedStack {
        uint64_t hash = 0;
        uint64_t leaf = 0; // 0 = empty entry
        uint32_t offset = 0, length = 0;
    };
    std::vector<CachedStack> cache_;
    std::vector<uint64_t> cache_frames_;
};

} // namespace cpcprof::storage
