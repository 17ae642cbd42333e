// SPDX-License-Identifier: MIT
#include "symbolize/src/module_map.h"

#include <algorithm>

namespace cpcprof::symbolize {

ModuleMap::ModuleMap(const std::vector<Mapping> &mappings) {
    for (const Mapping &m : mappings) {
        if (m.end <= m.start)
            continue;
        auto it = std::find_if(modules_.begin(), modules_.end(), [&](const Module &mod) {
            return mod.path == m.path && mod.build_id == m.build_id;
        });
        if (it == modules_.end())
            it = modules_.insert(modules_.end(), Module{m.path, m.build_id, {}});
        it->mappings.push_back(m);
        ranges_.push_back({m.start, m.end, m.file_offset, size_t(it - modules_.begin())});
    }
    for (Module &mod : modules_)
        std::sort(mod.mappings.begin(), mod.mappings.end(),
                  [](const Mapping &a, const Mapping &b) { return a.start < b.start; });
    std::sort(ranges_.begin(), ranges_.end(),
              [](const Range &a, const Range &b) { return a.start < b.start; });
}

std::optional<ModuleMap::Hit> ModuleMap::find(uint64_t address) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                               [](uint64_t a, const Range &r) { return a < r.start; });
    if (it == ranges_.begin())
        return std::nullopt;
    --it;
    if (address >= it->end)
        return std::nullopt;
    return Hit{it->module, address - it->start + it->file_offset};
}

std::optional<uint64_t> elf_address(const std::vector<LoadSegment> &segments, uint64_t file_offset,
                                    uint64_t page_size) {
    for (int pass = 0; pass < 2; ++pass) {
        for (const LoadSegment &s : segments) {
            if (s.executable != (pass == 0))
                continue;
            uint64_t first = s.offset & ~(page_size - 1); // the kernel maps whole pages
            if (file_offset < first || file_offset >= s.offset + s.filesz)
                continue;
            // vaddr and offset are congruent modulo the page size, so the byte
            // at file_offset has ELF address vaddr - offset + file_offset.
            return s.vaddr - s.offset + file_offset;
        }
    }
    return std::nullopt;
}

std::optional<uint64_t> load_bias(const std::vector<LoadSegment> &segments, uint64_t start,
                                  uint64_t file_offset, uint64_t page_size) {
    std::optional<uint64_t> elf = elf_address(segments, file_offset, page_size);
    if (!elf)
        return std::nullopt;
    return start - *elf;
}

} // namespace cpcprof::symbolize
