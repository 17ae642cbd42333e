// SPDX-License-Identifier: MIT
#include "storage/src/address_map.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace cpcprof::storage {

AddressMap::AddressMap(std::span<const ModuleRecord> mappings) : mappings_(mappings) {
    for (uint32_t i = 0; i < mappings.size(); ++i) {
        const ModuleRecord &m = mappings[i];
        auto [it, fresh] =
            pid_index_.try_emplace(m.info.pid, static_cast<uint32_t>(processes_.size()));
        if (fresh)
            processes_.emplace_back();
        Process &p = processes_[it->second];
        p.mappings.push_back(i);
        p.boundaries.push_back(m.info.load_ns);
        if (m.unload_ns)
            p.boundaries.push_back(*m.unload_ns);
    }
    for (Process &p : processes_) {
        std::sort(p.boundaries.begin(), p.boundaries.end());
        p.boundaries.erase(std::unique(p.boundaries.begin(), p.boundaries.end()),
                           p.boundaries.end());
        p.by_span.assign(p.boundaries.size() + 1, 0);
    }
}

uint32_t AddressMap::context(int pid, int64_t time_ns) {
    if (pid != last_pid_ || last_process_ == kNoMapping) {
        auto it = pid_index_.find(pid);
        if (it == pid_index_.end())
            return 0;
        last_pid_ = pid;
        last_process_ = it->second;
    }
    Process &p = processes_[last_process_];
    // Span i is [boundaries[i-1], boundaries[i]); span 0 is before the first.
    size_t span = static_cast<size_t>(
        std::upper_bound(p.boundaries.begin(), p.boundaries.end(), time_ns) - p.boundaries.begin());
    uint32_t &c = p.by_span[span];
    if (c == 0) {
        if (!p.indexed) {
            p.index.build(mappings_, p.mappings);
            p.indexed = true;
        }
        // Every time t in span i >= 1 has boundaries[i-1] <= t < boundaries[i];
        // loads and unloads are boundaries, so "load <= t" is "load <=
        // boundaries[i-1]" and "t < unload" is "unload > boundaries[i-1]".
        contexts_.push_back({last_process_, span != 0, span != 0 ? p.boundaries[span - 1] : 0});
        c = static_cast<uint32_t>(contexts_.size() - 1);
    }
    return c;
}

void AddressMap::Index::build(std::span<const ModuleRecord> all,
                              const std::vector<uint32_t> &mappings) {
    for (uint32_t i : mappings)
        if (all[i].info.end > all[i].info.start) {
            cuts.push_back(all[i].info.start);
            cuts.push_back(all[i].info.end);
        }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const size_t leaves = cuts.size() < 2 ? 0 : cuts.size() - 1;
    lists.assign(2 * leaves, {});
    auto leaf = [&](uint64_t a) {
        return size_t(std::lower_bound(cuts.begin(), cuts.end(), a) - cuts.begin());
    };
    for (uint32_t i : mappings) {
        const ModuleRecord &m = all[i];
        if (m.info.end <= m.info.start)
            continue;
        Entry e{m.info.load_ns, m.unload_ns.value_or(std::numeric_limits<int64_t>::max()), i};
        for (size_t l = leaf(m.info.start) + leaves, r = leaf(m.info.end) + leaves; l < r;
             l >>= 1, r >>= 1) {
            if (l & 1)
                lists[l++].push_back(e);
            if (r & 1)
                lists[--r].push_back(e);
        }
    }
    sparse.assign(lists.size(), {});
    for (size_t k = 0; k < lists.size(); ++k) {
        std::vector<Entry> &list = lists[k];
        std::sort(list.begin(), list.end(), [](const Entry &a, const Entry &b) {
            return std::tie(a.load_ns, a.mapping) < std::tie(b.load_ns, b.mapping);
        });
        const size_t n = list.size();
        std::vector<int64_t> &t = sparse[k];
        for (size_t i = 0; i < n; ++i)
            t.push_back(list[i].unload_ns);
        for (size_t j = 1; (size_t{1} << j) <= n; ++j) {
            size_t prev = (j - 1) * n, half = size_t{1} << (j - 1);
            t.resize((j + 1) * n, 0);
            for (size_t i = 0; i + (size_t{1} << j) <= n; ++i)
                t[j * n + i] = std::max(t[prev + i], t[prev + i + half]);
        }
    }
}

uint32_t AddressMap::Index::find(uint64_t address, bool loaded_before, int64_t t) const {
    const size_t leaves = lists.size() / 2;
    auto after = std::upper_bound(cuts.begin(), cuts.end(), address);
    if (after == cuts.begin() || after == cuts.end())
        return kNoMapping;
    const Entry *live = nullptr, *earlier = nullptr, *later = nullptr;
    auto key = [](const Entry *e) { return std::tie(e->load_ns, e->mapping); };
    for (size_t k = size_t(after - cuts.begin()) - 1 + leaves; k > 0; k >>= 1) {
        const std::vector<Entry> &list = lists[k];
        if (list.empty())
            continue;
        if (later == nullptr || key(&list[0]) < key(later))
            later = &list[0];
        if (!loaded_before)
            continue;
        // Entries loaded at or before t: a prefix of the list.
        size_t p =
            size_t(std::upper_bound(list.begin(), list.end(), t,
                                    [](int64_t v, const Entry &e) { return v < e.load_ns; }) -
                   list.begin());
        if (p == 0)
            continue;
        if (earlier == nullptr || key(&list[p - 1]) > key(earlier))
            earlier = &list[p - 1];
        // The last of them still loaded after t (unload_ns > t): skip
        // blocks of 2^j entries whose unloads are all <= t.
        const std::vector<int64_t> &st = sparse[k];
        const size_t n = list.size();
        size_t pos = p;
        for (size_t j = 64 - size_t(__builtin_clzll(p)); j-- > 0;)
            if (pos >= (size_t{1} << j) && st[j * n + pos - (size_t{1} << j)] <= t)
                pos -= size_t{1} << j;
        if (pos > 0 && (live == nullptr || key(&list[pos - 1]) > key(live)))
            live = &list[pos - 1];
    }
    const Entry *best = live ? live : earlier ? earlier : later;
    return best ? best->mapping : kNoMapping;
}

uint32_t AddressMap::find(uint32_t context, uint64_t address) const {
    if (context == 0 || context >= contexts_.size())
        return kNoMapping;
    const Context &c = contexts_[context];
    return processes_[c.process].index.find(address, c.loaded_before, c.t);
}

CodeAddress AddressMap::locate(uint32_t context, uint64_t address) const {
    uint32_t i = find(context, address);
    if (i == kNoMapping)
        return {0, address};
    const ModuleInfo &m = mappings_[i].info;
    return {mappings_[i].module_id, address - m.start + m.file_offset};
}

} // namespace cpcprof::storage
