// SPDX-License-Identifier: MIT
// Resolved locations by (module index, looked-up address): each unique
// address of a session is resolved once.  (KDAB/perfparser
// app/perfaddresscache.h keeps the same per-ELF cache.)
#pragma once

#include "symbolize/symbolizer.h"

#include <cstdint>
#include <unordered_map>

namespace cpcprof::symbolize {

class AddressCache {
  public:
    static constexpr size_t no_module = SIZE_MAX;

    const Location *find(size_t module, uint64_t address) const {
        auto it = map_.find(Key{module, address});
        return it == map_.end() ? nullptr : &it->second;
    }
    const Location &insert(size_t module, uint64_t address, Location location) {
        return map_.insert_or_assign(Key{module, address}, std::move(location)).first->second;
    }
    size_t size() const { return map_.size(); }

  private:
    struct Key {
        size_t module;
        uint64_t address;
        bool operator==(const Key &) const = default;
    };
    struct Hash {
        size_t operator()(const Key &k) const {
            return std::hash<uint64_t>()(k.address * 0x9e3779b97f4a7c15ULL ^ k.module);
        }
    };
    std::unordered_map<Key, Location, Hash> map_;
};

} // namespace cpcprof::symbolize
