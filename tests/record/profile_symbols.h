// SPDX-License-Identifier: MIT
// Sample addresses -> function names for the record tests, from the
// profile's modules (where each file was mapped, from when to when) and the
// files' own symbol tables (ElfSymbols).  A stand-in for the symbolizer:
// no DWARF, no inline frames, no demangling.
#pragma once

#include "tests/record/elf_symbols.h"
#include "tests/record/record_harness.h"

#include "storage/profile.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::test {

class ProfileSymbols {
  public:
    explicit ProfileSymbols(const storage::Reader &reader);

    // The module mapped at addr in pid at time_ns (when several were, as
    // across an exec or a dlclose/dlopen, the one mapped then), or null.
    const storage::ModuleRecord *module(int pid, uint64_t addr, int64_t time_ns) const;

    // The function at addr, compiler suffixes removed (base_name) unless
    // whole (Go's "main.main"); "" when no module or no symbol covers it.
    std::string function(int pid, uint64_t addr, int64_t time_ns, bool whole = false) const;

    // A sample's frames as function names, leaf first.  Return addresses
    // (every frame but the first) are looked up at addr - 1, inside the
    // call instruction.
    std::vector<std::string> stack(const storage::StoredSample &s, bool whole = false) const;

  private:
    const ElfSymbols *symbols_of(const std::string &path) const;

    std::multimap<int, const storage::ModuleRecord *> by_pid_;
    mutable std::map<std::string, std::optional<ElfSymbols>> files_;
};

// Samples of pid (of any pid when pid is 0) with fn anywhere on the stack.
size_t samples_in(const Profile &p, const ProfileSymbols &syms, const std::string &fn, int pid = 0);

} // namespace cpcprof::test
