// SPDX-License-Identifier: MIT
// The recorded mapping table of a process, grouped into modules (one per
// distinct file), and the load bias a mapping implies for its file.
#pragma once

#include "symbolize/symbolizer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::symbolize {

class ModuleMap {
  public:
    struct Module {
        std::string path, build_id;
        std::vector<Mapping> mappings; // sorted by start
    };
    struct Hit {
        size_t module;
        uint64_t file_offset; // of the address in the module's file
    };

    explicit ModuleMap(const std::vector<Mapping> &mappings);

    std::optional<Hit> find(uint64_t address) const;
    const std::vector<Module> &modules() const { return modules_; }

  private:
    struct Range {
        uint64_t start, end, file_offset;
        size_t module;
    };
    std::vector<Module> modules_;
    std::vector<Range> ranges_; // sorted by start
};

// A PT_LOAD program header, as far as placing the file in memory goes.
struct LoadSegment {
    uint64_t vaddr, offset, filesz;
    bool executable = true;
};

// The load bias (process address - ELF address) of a file whose bytes from
// file_offset on are mapped executable at start: from the segment that holds
// file_offset, an executable one first (a page may hold the end of one
// segment and the start of the next).  nullopt if no segment does.
// The ELF address of the byte at file_offset: through the segment that
// holds it, an executable one first.  nullopt if no segment does.
std::optional<uint64_t> elf_address(const std::vector<LoadSegment> &segments, uint64_t file_offset,
                                    uint64_t page_size = 4096);

std::optional<uint64_t> load_bias(const std::vector<LoadSegment> &segments, uint64_t start,
                                  uint64_t file_offset, uint64_t page_size = 4096);

} // namespace cpcprof::symbolize
