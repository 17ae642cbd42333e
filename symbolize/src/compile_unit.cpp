// SPDX-License-Identifier: MIT
#include "symbolize/src/compile_unit.h"

#include "symbolize/src/demangle.h"

#include <dwarf.h>

#include <algorithm>
#include <filesystem>

namespace cpcprof::symbolize {

namespace {

bool udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *out) {
    Dwarf_Attribute attr;
    return dwarf_attr(die, name, &attr) != nullptr && dwarf_formudata(&attr, out) == 0;
}

// The linkage name, demangled, through DW_AT_abstract_origin and
// DW_AT_specification.
std::string linkage_name(Dwarf_Die *die) {
    Dwarf_Attribute attr;
    for (unsigned int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
        if (dwarf_attr_integrate(die, at, &attr) != nullptr) {
            if (const char *s = dwarf_formstring(&attr))
                return demangle(s);
        }
    }
    return {};
}

// The DIE that carries die's DW_AT_name, following abstract origins and
// specifications (bounded: DWARF from the wild may loop).
bool named_die(Dwarf_Die *die, Dwarf_Die *out) {
    *out = *die;
    for (int hops = 0; hops < 8; ++hops) {
        if (dwarf_hasattr(out, DW_AT_name))
            return true;
        Dwarf_Attribute attr;
        if (dwarf_attr(out, DW_AT_abstract_origin, &attr) == nullptr &&
            dwarf_attr(out, DW_AT_specification, &attr) == nullptr)
            return false;
        if (dwarf_formref_die(&attr, out) == nullptr)
            return false;
    }
    return false;
}

bool is_scope(int tag) {
    return tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
           tag == DW_TAG_union_type;
}

} // namespace

CompileUnit::CompileUnit(Dwarf_Die cu) : cu_(cu) {
    Dwarf_Attribute attr;
    if (dwarf_attr(&cu_, DW_AT_comp_dir, &attr) != nullptr)
        if (const char *dir = dwarf_formstring(&attr))
            comp_dir_ = dir;
    Dwarf_Addr base, low, high;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(&cu_, off, &base, &low, &high)) > 0;)
        if (high > low)
            ranges_.emplace_back(low, high);
    std::sort(ranges_.begin(), ranges_.end());
    for (size_t i = 1; i < ranges_.size(); ++i) // each end: the highest so far (see covers())
        ranges_[i].second = std::max(ranges_[i].second, ranges_[i - 1].second);
    std::vector<ScopeIndex::Range> ranges;
    walk(&cu_, -1, 0, {}, ranges);
    index_ = ScopeIndex(std::move(ranges));
}

void CompileUnit::walk(Dwarf_Die *parent, int32_t parent_node, uint32_t depth,
                       const std::string &prefix, std::vector<ScopeIndex::Range> &ranges) {
    Dwarf_Die child;
    if (dwarf_child(parent, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        int32_t node = parent_node;
        if (tag == DW_TAG_subprogram && !prefix.empty() && dwarf_hasattr(&child, DW_AT_name) &&
            !dwarf_hasattr(&child, DW_AT_linkage_name))
            prefixes_.emplace(dwarf_dieoffset(&child), prefix);
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
        if (dwarf_haschildren(&child) > 0) {
            const char *scope_name = is_scope(tag) ? dwarf_diename(&child) : nullptr;
            walk(&child, node, depth + 1, scope_name ? prefix + scope_name + "::" : prefix, ranges);
        }
    } while (dwarf_siblingof(&child, &child) == 0);
}

const std::string &CompileUnit::name(Node &node) {
    if (!node.name) {
        node.name = linkage_name(&node.die);
        Dwarf_Die named;
        if (node.name->empty() && named_die(&node.die, &named)) {
            auto prefix = prefixes_.find(dwarf_dieoffset(&named));
            const char *plain = dwarf_diename(&named);
            node.name = (prefix == prefixes_.end() ? "" : prefix->second) + (plain ? plain : "");
        }
    }
    return *node.name;
}

std::string CompileUnit::file_name(uint32_t index) {
    Dwarf_Files *files;
    size_t count;
    if (dwarf_getsrcfiles(&cu_, &files, &count) != 0 || index >= count)
        return {};
    return absolute(dwarf_filesrc(files, index, nullptr, nullptr));
}

// A unit compiled from a relative path (ccache's base_dir,
// -fdebug-prefix-map=DIR=.) has relative names in its line table, which
// libdw returns as they are: relative to the compilation directory, as
// gdb and addr2line read them, not to wherever a report runs.
std::string CompileUnit::absolute(const char *path) const {
    if (path == nullptr)
        return {};
    if (path[0] == '/' || path[0] == '\0' || comp_dir_.empty() || comp_dir_[0] != '/')
        return path;
    return (std::filesystem::path(comp_dir_) / path).lexically_normal().string();
}

bool CompileUnit::covers(uint64_t address) const {
    if (ranges_.empty())
        return true;
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                               [](uint64_t a, const auto &r) { return a < r.first; });
    // Some range starting at or below address ends above it: ends are
    // running maxima, so overlapping ranges (a file from elsewhere) count.
    return it != ranges_.begin() && address < std::prev(it)->second;
}

CompileUnit::Chain CompileUnit::lookup(uint64_t address) {
    Chain chain;
    if (Dwarf_Line *line = dwarf_getsrc_die(&cu_, address)) {
        chain.outer_file = absolute(dwarf_linesrc(line, nullptr, nullptr));
        dwarf_lineno(line, &chain.outer_line);
    }
    std::optional<uint32_t> at = index_.innermost(address);
    for (int32_t i = at ? int32_t(*at) : -1; i >= 0; i = nodes_[size_t(i)].parent) {
        Node &n = nodes_[size_t(i)];
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
