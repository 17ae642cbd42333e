// SPDX-License-Identifier: MIT
#include "storage/src/stack_trie.h"

#include <algorithm>

namespace cpcprof::storage {
namespace {

uint64_t mix(uint64_t parent, uint64_t address) {
    // splitmix64's finalizer over both words: addresses share high bits
    // and differ in a few low ones, so they must be spread before masking.
    uint64_t x = address ^ (parent * 0x9e3779b97f4a7c15ULL);
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t hash_stack(std::span<const uint64_t> frames) {
    uint64_t h = frames.size();
    for (uint64_t f : frames)
        h = (h ^ f) * 0x9e3779b97f4a7c15ULL + (h >> 29);
    return mix(h, 0);
}

constexpr size_t kCacheEntries = 32768;          // power of two
constexpr size_t kCacheFrames = size_t{1} << 20; // 8 MiB of frames, then start over

} // namespace

StackTrie::StackTrie() : nodes_(1), slots_(1024, 0), cache_(kCacheEntries) {}

uint64_t StackTrie::intern(std::span<const uint64_t> frames, std::vector<uint64_t> *created) {
    if (frames.empty())
        return 0;
    uint64_t hash = hash_stack(frames);
    if (uint64_t *leaf = cached(frames, hash))
        return *leaf;
    uint64_t id = 0;
    for (size_t i = frames.size(); i-- > 0;)
        id = child(id, frames[i], created);
    remember(frames, hash, id);
    return id;
}

// Two candidate entries per stack (from the two halves of the hash), so
// that two hot stacks rarely evict each other.
uint64_t *StackTrie::cached(std::span<const uint64_t> frames, uint64_t hash) {
    for (size_t slot : {hash & (kCacheEntries - 1), (hash >> 32) & (kCacheEntries - 1)}) {
        CachedStack &e = cache_[slot];
        if (e.leaf != 0 && e.hash == hash && e.length == frames.size() &&
            std::equal(frames.begin(), frames.end(), cache_frames_.begin() + e.offset))
            return &e.leaf;
    }
    return nullptr;
}

void StackTrie::remember(std::span<const uint64_t> frames, uint64_t hash, uint64_t leaf) {
    if (frames.size() > kCacheFrames / 64)
        return; // a pathological depth: not worth a slot
    if (cache_frames_.size() + frames.size() > kCacheFrames) {
        cache_.assign(kCacheEntries, CachedStack{});
        cache_frames_.clear();
    }
    // An empty candidate if there is one, else alternate between the two.
    CachedStack *e = &cache_[hash & (kCacheEntries - 1)];
    CachedStack *other = &cache_[(hash >> 32) & (kCacheEntries - 1)];
    if (e->leaf != 0 && (other->leaf == 0 || (leaf & 1)))
        e = other;
    *e = {hash, leaf, static_cast<uint32_t>(cache_frames_.size()),
          static_cast<uint32_t>(frames.size())};
    cache_frames_.insert(cache_frames_.end(), frames.begin(), frames.end());
}

uint64_t StackTrie::child(uint64_t parent, uint64_t address, std::vector<uint64_t> *created) {
    size_t mask = slots_.size() - 1;
    for (size_t i = mix(parent, address) & mask;; i = (i + 1) & mask) {
        uint64_t id = slots_[i];
        if (id == 0) {
            id = nodes_.size();
            nodes_.push_back({parent, address});
            slots_[i] = id;
            created->push_back(id);
            if (nodes_.size() * 2 > slots_.size())
                rehash(slots_.size() * 2);
            return id;
        }
        const StackNode &n = nodes_[id];
        if (n.parent == parent && n.address == address)
            return id;
    }
}

void StackTrie::rehash(size_t slot_count) {
    slots_.assign(slot_count, 0);
    size_t mask = slot_count - 1;
    for (uint64_t id = 1; id < nodes_.size(); ++id) {
        size_t i = mix(nodes_[id].parent, nodes_[id].address) & mask;
        while (slots_[i] != 0)
            i = (i + 1) & mask;
        slots_[i] = id;
    }
}

} // namespace cpcprof::storage
