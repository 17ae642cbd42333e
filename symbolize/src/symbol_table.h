// SPDX-License-Identifier: MIT
// A module's function symbols, read once, sorted by address and searched
// by binary search: dwfl_module_addrinfo scans the whole symbol table for
// every address, which is what makes eu-addr2line slow on big binaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::symbolize {

class SymbolTable {
  public:
    // Any order; finalize() before find().  A size of 0 (hand-written
    // assembly) means "up to the next symbol".
    void add(uint64_t start, uint64_t size, std::string name, bool global);
    void finalize();

    // The demangled name of the function containing address, nullptr if
    // none.  Demangled once per symbol, on first use.
    const std::string *find(uint64_t address);

    size_t size() const { return symbols_.size(); }

  private:
    struct Symbol {
        uint64_t start, end;
        std::string name;
        bool global;
        bool demangled = false;
    };
    std::vector<Symbol> symbols_;
};

// A symbol name as users know it: without the version that .symtab gives
// the aliases of versioned symbols ("__libc_start_main@GLIBC_2.2.5",
// "memcpy@@GLIBC_2.14"), as perf and gdb show them.
std::string unversioned_name(const char *name);

} // namespace cpcprof::symbolize
