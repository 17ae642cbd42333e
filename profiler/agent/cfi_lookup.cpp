// SPDX-License-Identifier: MIT
// Signal context: everything here runs in the overflow handler (find_cfi)
// but publish_cfi, a single atomic store.  No lock, no allocation.
#include "profiler/agent/cfi.h"

#include <atomic>
#include <cstddef>

namespace cpcprof::agent {

namespace {

// The published index (cfi_tables.cpp keeps every index it made).
std::atomic<const CfiIndex *> g_index{nullptr};

} // namespace

void publish_cfi(const CfiIndex *index) {
    g_index.store(index, std::memory_order_release); // pairs with find_cfi
}

const CfiRow *find_cfi(uintptr_t pc, uintptr_t *bias) {
    const CfiIndex *idx = g_index.load(std::memory_order_acquire);
    return idx != nullptr ? find_cfi_in(*idx, pc, bias) : nullptr;
}

const CfiRow *find_cfi_in(const CfiIndex &index, uintptr_t pc, uintptr_t *bias) {
    const auto &mods = index.modules;
    size_t lo = 0, hi = mods.size();
    while (lo < hi) { // last module with lo <= pc
        size_t mid = (lo + hi) / 2;
        if (mods[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return nullptr;
    const ModuleCfi &m = mods[lo - 1];
    if (pc >= m.hi || pc < m.bias || pc - m.bias > UINT32_MAX)
        return nullptr;
    auto off = static_cast<uint32_t>(pc - m.bias);
    size_t a = 0, b = m.count;
    while (a < b) { // last row with pc <= off
        size_t mid = (a + b) / 2;
        if (m.pcs[mid] <= off)
            a = mid + 1;
        else
            b = mid;
    }
    if (a == 0)
        return nullptr;
    *bias = m.bias;
    return &m.rows[a - 1];
}

} // namespace cpcprof::agent
