// SPDX-License-Identifier: MIT
#include "symbolize/src/symbol_table.h"

#include "symbolize/src/demangle.h"

#include <algorithm>
#include <cstring>

namespace cpcprof::symbolize {

std::string unversioned_name(const char *name) {
    const char *at = std::strchr(name, '@');
    return at != nullptr && at != name ? std::string(name, at) : std::string(name);
}

void SymbolTable::add(uint64_t start, uint64_t size, std::string name, bool global) {
    symbols_.push_back({start, start + size, std::move(name), global});
}

void SymbolTable::finalize() {
    // At one address (aliases), prefer a global name, then a sized one.
    std::sort(symbols_.begin(), symbols_.end(), [](const Symbol &a, const Symbol &b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.global != b.global)
            return a.global;
        return a.end > b.end;
    });
    symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                               [](const Symbol &a, const Symbol &b) { return a.start == b.start; }),
                   symbols_.end());
    for (size_t i = 0; i < symbols_.size(); ++i) {
        if (symbols_[i].end == symbols_[i].start)
            symbols_[i].end = i + 1 < symbols_.size() ? symbols_[i + 1].start : UINT64_MAX;
    }
}

const std::string *SymbolTable::find(uint64_t address) {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                               [](uint64_t a, const Symbol &s) { return a < s.start; });
    if (it == symbols_.begin())
        return nullptr;
    Symbol &s = *std::prev(it);
    if (address >= s.end)
        return nullptr;
    if (!s.demangled) {
        s.name = demangle(s.name.c_str());
        s.demangled = true;
    }
    return &s.name;
}

} // namespace cpcprof::symbolize
