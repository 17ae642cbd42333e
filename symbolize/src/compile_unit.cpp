#include "compile_unit.h"

#include "demangle.h"

#include <dwarf.h>

namespace cpcprof::symbolize {

namespace {

bool udata(Dwarf_Die* die, unsigned int name, Dwarf_Word* out) {
    Dwarf_Attribute attr;
    return dwarf_attr(die, name, &attr) != nullptr && dwarf_formudata(&attr, out) == 0;
}

// The linkage name, demangled, through DW_AT_abstract_origin and
// DW_AT_specification; else the plain name (C, main, extern "C").
std::string function_name(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    for (unsigned int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
        if (dwarf_attr_integrate(die, at, &attr) != nullptr) {
            if (const char* s = dwarf_formstring(&attr))
                return demangle(s);
        }
    }
    if (dwarf_attr_integrate(die, DW_AT_name, &attr) != nullptr) {
        if (const char* s = dwarf_formstring(&attr))
            return s;
    }
    return {};
}

} // namespace

CompileUnit::CompileUnit(Dwarf_Die cu) : cu_(cu) {
    std::vector<ScopeIndex::Range> ranges;
    walk(&cu_, -1, 0, ranges);
    index_ = ScopeIndex(std::move(ranges));
}

void CompileUnit::walk(Dwarf_Die* parent, int32_t parent_node, uint32_t depth,
                       std::vector<ScopeIndex::Range>& ranges) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        int32_t node = parent_node;
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
            Dwarf_Addr base, low, high;
            ptrdiff_t off = 0;
            auto index = uint32_t(nodes_.size());
            bool any = false;
            while ((off = dwarf_ranges(&child, off, &base, &low, &high)) > 0) {
                ranges.push_back({low, high, index, depth});
                any = true;
            }
            if (any) {
                Node n;
                n.die = child;
                n.parent = parent_node;
                n.inlined = tag == DW_TAG_inlined_subroutine;
                Dwarf_Word w;
                if (udata(&child, DW_AT_call_file, &w))
                    n.call_file = uint32_t(w);
                if (udata(&child, DW_AT_call_line, &w))
                    n.call_line = int(w);
                nodes_.push_back(std::move(n));
                node = int32_t(index);
            }
        }
        // Types, namespaces and lexical blocks may all hold code scopes
        // (local classes, lambdas, inlined calls in blocks): descend always.
        if (dwarf_haschildren(&child) > 0)
            walk(&child, node, depth + 1, ranges);
    } while (dwarf_siblingof(&child, &child) == 0);
}

const std::string& CompileUnit::name(Node& node) {
    if (!node.name)
        node.name = function_name(&node.die);
    return *node.name;
}

std::string CompileUnit::file_name(uint32_t index) {
    Dwarf_Files* files;
    size_t count;
    if (dwarf_getsrcfiles(&cu_, &files, &count) != 0 || index >= count)
        return {};
    const char* s = dwarf_filesrc(files, index, nullptr, nullptr);
    return s ? s : "";
}

CompileUnit::Chain CompileUnit::lookup(uint64_t address) {
    Chain chain;
    if (Dwarf_Line* line = dwarf_getsrc_die(&cu_, address)) {
        if (const char* s = dwarf_linesrc(line, nullptr, nullptr))
            chain.outer_file = s;
        dwarf_lineno(line, &chain.outer_line);
    }
    std::optional<uint32_t> at = index_.innermost(address);
    for (int32_t i = at ? int32_t(*at) : -1; i >= 0; i = nodes_[size_t(i)].parent) {
        Node& n = nodes_[size_t(i)];
        chain.frames.push_back({name(n), chain.outer_file, chain.outer_line, n.inlined});
        if (!n.inlined) {
            chain.complete = true;
            break;
        }
        chain.outer_file = file_name(n.call_file);
        chain.outer_line = n.call_line;
    }
    return chain;
}

} // namespace cpcprof::symbolize
