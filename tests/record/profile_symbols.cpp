// SPDX-License-Identifier: MIT
#include "tests/record/profile_symbols.h"

#include <algorithm>

namespace cpcprof::test {

ProfileSymbols::ProfileSymbols(const storage::Reader &reader) {
    for (const storage::ModuleRecord &m : reader.modules())
        by_pid_.emplace(m.info.pid, &m);
}

const storage::ModuleRecord *ProfileSymbols::module(int pid, uint64_t addr, int64_t time_ns) const {
    const storage::ModuleRecord *best = nullptr;
    auto better = [&](const storage::ModuleRecord *m) {
        // Mapped at time_ns beats mapped before it beats mapped later.
        auto rank = [&](const storage::ModuleRecord *r) {
            bool started = r->info.load_ns <= time_ns;
            bool live = started && (!r->unload_ns || time_ns < *r->unload_ns);
            return live ? 2 : started ? 1 : 0;
        };
        if (best == nullptr || rank(m) != rank(best))
            return best == nullptr || rank(m) > rank(best);
        return m->info.load_ns > best->info.load_ns;
    };
    auto [lo, hi] = by_pid_.equal_range(pid);
    for (auto it = lo; it != hi; ++it) {
        const storage::ModuleRecord *m = it->second;
        if (addr >= m->info.start && addr < m->info.end && better(m))
            best = m;
    }
    return best;
}

const ElfSymbols *ProfileSymbols::symbols_of(const std::string &path) const {
    auto it = files_.find(path);
    if (it == files_.end()) {
        std::string error;
        std::optional<ElfSymbols> s;
        if (!path.empty() && path[0] == '/')
            s = ElfSymbols::load(path, &error);
        it = files_.emplace(path, std::move(s)).first;
    }
    return it->second ? &*it->second : nullptr;
}

std::string ProfileSymbols::function(int pid, uint64_t addr, int64_t time_ns, bool whole) const {
    const storage::ModuleRecord *m = module(pid, addr, time_ns);
    if (m == nullptr)
        return {};
    const ElfSymbols *syms = symbols_of(m->info.path);
    if (syms == nullptr)
        return {};
    auto vaddr = syms->vaddr_of_offset(addr - m->info.start + m->info.file_offset);
    const ElfSymbol *s = vaddr ? syms->at(*vaddr) : nullptr;
    if (s == nullptr)
        return {};
    return whole ? s->name : base_name(s->name);
}

std::vector<std::string> ProfileSymbols::stack(const storage::StoredSample &s, bool whole) const {
    std::vector<std::string> out;
    out.reserve(s.frames.size());
    for (size_t i = 0; i < s.frames.size(); ++i)
        out.push_back(function(s.pid, i == 0 ? s.frames[i] : s.frames[i] - 1, s.time_ns, whole));
    return out;
}

size_t samples_in(const Profile &p, const ProfileSymbols &syms, const std::string &fn, int pid) {
    size_t n = 0;
    for (const SampleCopy &s : p.samples) {
        if (pid != 0 && s.pid != pid)
            continue;
        auto names = syms.stack(s.view());
        n += std::find(names.begin(), names.end(), fn) != names.end();
    }
    return n;
}

} // namespace cpcprof::test
