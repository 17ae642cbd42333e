// SPDX-License-Identifier: MIT
// The function symbols of one ELF file, for tests that map sample
// addresses to functions before the symbolizer exists: a sorted table of
// (address, size, name) from .symtab (or .dynsym when the file is
// stripped), and the file's PT_LOAD segments to turn a file offset into an
// ELF virtual address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::test {

struct ElfSymbol {
    uint64_t address = 0; // ELF virtual address
    uint64_t size = 0;
    std::string name; // as in the file (a ".cold"/".part.N" suffix kept)
};

class ElfSymbols {
  public:
    // Reads path with libelf; nullopt with *error set if it is not an ELF
    // file with program headers.
    static std::optional<ElfSymbols> load(const std::string &path, std::string *error);

    // The function containing the virtual address, or null.
    const ElfSymbol *at(uint64_t vaddr) const;
    // The virtual address of a file offset, through the PT_LOAD segment
    // that maps it.
    std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;
    // The first symbol called name, or null.
    const ElfSymbol *find(std::string_view name) const;

    size_t size() const { return symbols_.size(); }

  private:
    struct Load {
        uint64_t offset, vaddr, filesz;
    };
    std::vector<ElfSymbol> symbols_; // sorted by address
    std::vector<Load> loads_;
};

// "wl_compute.cold" -> "wl_compute": the function a compiler-made part
// belongs to.
std::string base_name(std::string_view symbol);

} // namespace cpcprof::test
