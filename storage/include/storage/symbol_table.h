// SPDX-License-Identifier: MIT
// SymbolTable: the symbols of a profile as a Reader loads them, compact and
// built for lookups in bulk: strings once each, frames as small numbers.
//
// A chain is what the symbolizer found at one (module, file offset): its
// frames, innermost first (inlined calls, then the real function).  Chains
// are numbered 1..size() in (module, offset) order; 0 is "no symbols".
// Numbers are stable for the life of the table, so callers can key their
// own arrays by chain, function or file number.
#pragma once

#include "storage/records.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cpcprof::storage {

// One frame of a chain, with its strings as numbers.
struct FrameRef {
    uint32_t function = 0; // index into SymbolTable::functions(); 0 = unknown ("")
    uint32_t file = 0;     // index into SymbolTable::files(); 0 = unknown ("")
    uint32_t line = 0;     // 0 = unknown
    bool inlined = false;  // inlined into the next frame of the chain

    bool operator==(const FrameRef &) const = default;
};

class SymbolTable {
  public:
    // Distinct function names and source files; [0] is "" (unknown).
    // Equal text = equal number.
    const std::vector<std::string> &functions() const { return functions_; }
    const std::vector<std::string> &files() const { return files_; }

    // Number of chains (addresses with symbols).
    uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
    bool empty() const { return entries_.empty(); }

    // The chain stored for where; 0 if none.  A binary search: resolve
    // each distinct address once (StackLocator does) rather than per sample.
    uint32_t find(CodeAddress where) const;
    // The chain for code reached at where as a return address (a caller's
    // frame): the one stored at offset - 1 when the address was also a
    // PC and resolved apart (SymbolWriter::add_return), else find(where).
    // find(where) itself is the answer for where as the interrupted PC.
    uint32_t find_return(CodeAddress where) const;
    // Frames of a chain, innermost first; empty for 0 or an unknown number.
    std::span<const FrameRef> frames(uint32_t chain) const;
    // The address a chain belongs to; {} for 0 or an unknown number.
    CodeAddress address(uint32_t chain) const;

    // The chain with its strings, as the symbolizer gave it.
    std::vector<SymbolFrame> expand(uint32_t chain) const;

  private:
    friend struct SymbolTableAccess; // the loader (storage/src/symbol_load.cpp)

    struct Entry {
        CodeAddress where;
        uint32_t first = 0; // frames_[first, first + count)
        uint32_t count = 0;
    };
    std::vector<std::string> functions_{std::string()};
    std::vector<std::string> files_{std::string()};
    std::vector<Entry> entries_; // sorted by where; chain n = entries_[n - 1]
    std::vector<FrameRef> frames_;
};

} // namespace cpcprof::storage
