// SPDX-License-Identifier: MIT
// FlatMap: uint64_t -> uint32_t, open addressing with linear probing, at
// most half full.  One probe, usually one cache line, per lookup: the
// StackLocator does one per sample (a node-based std::unordered_map cost
// 20 % of a 1 M-sample report in its pointer chasing).
#pragma once

#include <cstdint>
#include <vector>

namespace cpcprof::base {

class FlatMap {
  public:
    // The value of key, or nullptr.  Valid until the next insert.
    const uint32_t *find(uint64_t key) const {
        if (slots_.empty())
            return nullptr;
        for (size_t i = slot_of(key);; i = (i + 1) & mask()) {
            const Slot &s = slots_[i];
            if (s.used == 0)
                return nullptr;
            if (s.key == key)
                return &s.value;
        }
    }

    // key must not be present.
    void insert(uint64_t key, uint32_t value) {
        if (2 * (size_ + 1) > slots_.size())
            grow();
        place(key, value);
        ++size_;
    }

    size_t size() const { return size_; }

  private:
    struct Slot {
        uint64_t key = 0;
        uint32_t value = 0;
        uint32_t used = 0;
    };

    static uint64_t mix(uint64_t h) { // splitmix64's finalizer
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ULL;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebULL;
        return h ^ (h >> 31);
    }
    size_t mask() const { return slots_.size() - 1; }
    size_t slot_of(uint64_t key) const { return static_cast<size_t>(mix(key)) & mask(); }

    void place(uint64_t key, uint32_t value) {
        size_t i = slot_of(key);
        while (slots_[i].used != 0)
            i = (i + 1) & mask();
        slots_[i] = {key, value, 1};
    }

    void grow() {
        std::vector<Slot> old(slots_.empty() ? 1024 : 2 * slots_.size());
        old.swap(slots_);
        for (const Slot &s : old)
            if (s.used != 0)
                place(s.key, s.value);
    }

    std::vector<Slot> slots_; // size a power of two
    size_t size_ = 0;
};

} // namespace cpcprof::base
