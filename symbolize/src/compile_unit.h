// SPDX-License-Identifier: MIT
// One compile unit's function scopes, indexed once (ScopeIndex), with the
// names of scopes resolved on first use.  Line tables are libdw's own: read
// once per unit by dwarf_getsrclines and searched by dwarf_getsrc_die with a
// binary search.
#pragma once

#include "symbolize/src/scope_index.h"
#include "symbolize/symbolizer.h"

#include <elfutils/libdw.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cpcprof::symbolize {

class CompileUnit {
  public:
    explicit CompileUnit(Dwarf_Die cu); // walks the unit's DIE tree once

    struct Chain {
        // Innermost first, up to and including the real function (a frame
        // with inlined == false) if the unit has its scope.
        std::vector<Frame> frames;
        // Where control is in the function that frames does not name (the
        // address's line if frames is empty, else the call site of the
        // outermost inlined frame); the caller names it from the symbol table.
        std::string outer_file;
        int outer_line = 0;
        bool complete = false; // frames ends with the real function
    };
    Chain lookup(uint64_t dwarf_address);

    // Whether the unit's own ranges (DW_AT_low_pc/high_pc or DW_AT_ranges)
    // hold dwarf_address; a unit that states none is taken to hold it.
    // libdwfl hands an address in a gap between units (crt1.o's _start,
    // code without DWARF) to the unit before it, whose line table then
    // gives its last line: code that is not the unit's has no line here.
    bool covers(uint64_t dwarf_address) const;

    size_t scopes() const { return nodes_.size(); }

  private:
    struct Node {
        Dwarf_Die die;
        int32_t parent; // index of the enclosing scope, -1 for none
        bool inlined;
        uint32_t call_file = 0;
        int call_line = 0;
        std::optional<std::string> name;
    };
    void walk(Dwarf_Die *parent, int32_t parent_node, uint32_t depth, const std::string &prefix,
              std::vector<ScopeIndex::Range> &ranges);
    const std::string &name(Node &node);
    std::string file_name(uint32_t index);
    std::string absolute(const char *path) const; // joined to comp_dir_ when relative

    Dwarf_Die cu_;
    std::string comp_dir_; // DW_AT_comp_dir, "" if none
    // The unit's ranges [low, high) sorted by low, each high raised to the
    // highest of those before it.
    std::vector<std::pair<uint64_t, uint64_t>> ranges_;
    std::vector<Node> nodes_;
    ScopeIndex index_;
    // "ns::Class::" of the subprograms that have no linkage name (internal
    // linkage: GCC emits none), by DIE offset, to qualify their DW_AT_name.
    std::unordered_map<Dwarf_Off, std::string> prefixes_;
};

} // namespace cpcprof::symbolize
