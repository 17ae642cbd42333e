// SPDX-License-Identifier: MIT
#include "storage/stack_locator.h"

#include "base/flat_map.h"
#include "storage/src/address_map.h"

#include <unordered_map>

namespace cpcprof::storage {

namespace {

uint64_t mix(uint64_t h) { // splitmix64's finalizer
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

struct ChildKey {
    uint32_t parent;
    CodeAddress where;
    bool operator==(const ChildKey &) const = default;
};

struct ChildHash {
    size_t operator()(const ChildKey &k) const {
        return mix(mix(k.where.offset ^ (uint64_t{k.parent} << 32)) ^
                   static_cast<uint64_t>(k.where.module_id));
    }
};

} // namespace

struct StackLocator::Impl {
    const std::vector<StackNode> &trie;
    const SymbolTable &symbols;
    AddressMap map;
    std::vector<LocatedNode> nodes{LocatedNode{}};
    std::unordered_map<ChildKey, uint32_t, ChildHash> children;
    // (context << 40 | stack node) -> located node, for contexts below
    // 2^24 and nodes below 2^40 (any real profile).
    static constexpr uint64_t kMaxContexts = uint64_t{1} << 24, kMaxNodes = uint64_t{1} << 40;
    base::FlatMap memo;
    std::vector<uint64_t> path; // scratch

    explicit Impl(const Reader &r)
        : trie(r.stack_nodes()), symbols(r.symbol_table()), map(r.modules()) {}

    static uint64_t key(uint32_t context, uint64_t node) {
        return (uint64_t{context} << 40) | node;
    }

    uint32_t child(uint32_t parent, CodeAddress where) {
        auto [it, fresh] =
            children.try_emplace({parent, where}, static_cast<uint32_t>(nodes.size()));
        if (fresh)
            nodes.push_back({parent, where, symbols.find_return(where), nodes[parent].depth + 1,
                             symbols.find(where)});
        return it->second;
    }

    uint32_t locate_uncached(uint32_t context, uint64_t stack) {
        path.clear();
        for (uint64_t n = stack; n != 0; n = trie[n].parent)
            path.push_back(n);
        uint32_t base = 0;
        for (auto n = path.rbegin(); n != path.rend(); ++n)
            base = child(base, map.locate(context, trie[*n].address));
        return base;
    }

    uint32_t locate(uint32_t context, uint64_t stack) {
        // Up to the first node already located in this context (or the
        // root), then down again, locating and remembering each.
        path.clear();
        uint32_t base = 0;
        for (uint64_t n = stack; n != 0; n = trie[n].parent) {
            if (const uint32_t *hit = memo.find(key(context, n))) {
                base = *hit;
                break;
            }
            path.push_back(n);
        }
        for (auto n = path.rbegin(); n != path.rend(); ++n) {
            base = child(base, map.locate(context, trie[*n].address));
            memo.insert(key(context, *n), base);
        }
        return base;
    }
};

StackLocator::StackLocator(const Reader &reader) : impl_(std::make_unique<Impl>(reader)) {}
StackLocator::~StackLocator() = default;

uint32_t StackLocator::context(int pid, int64_t time_ns) {
    return impl_->map.context(pid, time_ns);
}

uint32_t StackLocator::locate_in(uint32_t context, uint64_t stack) {
    Impl &m = *impl_;
    if (stack == 0 || stack >= m.trie.size())
        return 0;
    if (context >= Impl::kMaxContexts || stack >= Impl::kMaxNodes) // beyond the memo's key
        return m.locate_uncached(context, stack);
    const uint32_t *hit = m.memo.find(Impl::key(context, stack));
    return hit != nullptr ? *hit : m.locate(context, stack);
}

const std::vector<LocatedNode> &StackLocator::nodes() const {
    return impl_->nodes;
}

} // namespace cpcprof::storage
