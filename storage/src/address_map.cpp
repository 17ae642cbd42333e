#include "address_map.h"

#include <algorithm>
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
    if (c == 0)
        c = build_context(p, span);
    return c;
}

uint32_t AddressMap::build_context(Process &p, size_t span) {
    // Every time t in span i >= 1 has boundaries[i-1] <= t < boundaries[i];
    // loads and unloads are boundaries, so "load <= t" is "load <=
    // boundaries[i-1]" and "t < unload" is "unload > boundaries[i-1]".
    std::vector<Interval> live, earlier, later;
    for (uint32_t i : p.mappings) {
        const ModuleRecord &m = mappings_[i];
        if (m.info.end <= m.info.start)
            continue;
        Interval v{m.info.start, m.info.end, m.info.load_ns, i};
        if (span == 0 || m.info.load_ns > p.boundaries[span - 1])
            later.push_back(v);
        else if (!m.unload_ns || *m.unload_ns > p.boundaries[span - 1])
            live.push_back(v);
        else
            earlier.push_back(v);
    }
    Context c;
    c.live.build(std::move(live));
    c.earlier.build(std::move(earlier));
    c.later.build(std::move(later));
    contexts_.push_back(std::move(c));
    return static_cast<uint32_t>(contexts_.size() - 1);
}

void AddressMap::Intervals::build(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end(),
              [](const Interval &a, const Interval &b) { return a.start < b.start; });
    list = std::move(intervals);
    max_end.resize(list.size());
    uint64_t running = 0;
    for (size_t i = 0; i < list.size(); ++i)
        max_end[i] = running = std::max(running, list[i].end);
}

uint32_t AddressMap::Intervals::find(uint64_t address, bool latest) const {
    auto after = std::upper_bound(list.begin(), list.end(), address,
                                  [](uint64_t a, const Interval &v) { return a < v.start; });
    const Interval *best = nullptr;
    for (size_t i = static_cast<size_t>(after - list.begin()); i-- > 0 && max_end[i] > address;) {
        const Interval &v = list[i];
        if (address >= v.end)
            continue;
        bool better =
            best == nullptr ||
            (latest ? std::tie(v.load_ns, v.mapping) > std::tie(best->load_ns, best->mapping)
                    : std::tie(v.load_ns, v.mapping) < std::tie(best->load_ns, best->mapping));
        if (better)
            best = &v;
    }
    return best ? best->mapping : kNoMapping;
}

uint32_t AddressMap::find(uint32_t context, uint64_t address) const {
    if (context == 0 || context >= contexts_.size())
        return kNoMapping;
    const Context &c = contexts_[context];
    uint32_t m = c.live.find(address, true);
    if (m == kNoMapping)
        m = c.earlier.find(address, true);
    return m != kNoMapping ? m : c.later.find(address, false);
}

CodeAddress AddressMap::locate(uint32_t context, uint64_t address) const {
    uint32_t i = find(context, address);
    if (i == kNoMapping)
        return {0, address};
    const ModuleInfo &m = mappings_[i].info;
    return {mappings_[i].module_id, address - m.start + m.file_offset};
}

} // namespace cpcprof::storage
