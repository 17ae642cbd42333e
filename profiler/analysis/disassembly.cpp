// SPDX-License-Identifier: MIT
#include "profiler/analysis/disassembly.h"

#include "profiler/analysis/tool_run.h"
#include "symbolize/debuginfod.h"
#include "symbolize/symbolizer.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <sys/stat.h>

namespace cpcprof::analysis {

namespace {

struct Segment {
    uint64_t offset = 0, vaddr = 0, filesz = 0;
};

// LOAD lines of `objdump -p`: "LOAD off 0x... vaddr 0x... paddr ..." then
// "filesz 0x... memsz ...".
std::vector<Segment> load_segments(const std::string &text) {
    std::vector<Segment> out;
    std::istringstream in(text);
    std::string line;
    bool want_size = false;
    while (std::getline(in, line)) {
        unsigned long long off = 0, vaddr = 0, filesz = 0;
        if (std::sscanf(line.c_str(), " LOAD off %llx vaddr %llx", &off, &vaddr) == 2) {
            out.push_back({off, vaddr, 0});
            want_size = true;
        } else if (want_size && std::sscanf(line.c_str(), " filesz %llx", &filesz) == 1) {
            out.back().filesz = filesz;
            want_size = false;
        }
    }
    return out;
}

struct Symbol {
    uint64_t start = 0, size = 0;
    std::string name;
};

// Function symbols with sizes from `nm -S --defined-only` text.
std::vector<Symbol> code_symbols(const std::string &text) {
    std::vector<Symbol> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        unsigned long long start = 0, size = 0;
        char type = 0;
        int name_at = 0;
        if (std::sscanf(line.c_str(), "%llx %llx %c %n", &start, &size, &type, &name_at) < 3 ||
            name_at == 0)
            continue;
        if (std::string("tTwWi").find(type) == std::string::npos || size == 0)
            continue;
        out.push_back({start, size, line.substr(size_t(name_at))});
    }
    return out;
}

bool parse_location(const std::string &s, std::string *file, uint32_t *line) {
    std::string t = s;
    size_t paren = t.find(" (");
    if (paren != std::string::npos)
        t.resize(paren);
    size_t colon = t.rfind(':');
    if (colon == std::string::npos || colon + 1 >= t.size())
        return false;
    for (size_t i = colon + 1; i < t.size(); ++i)
        if (t[i] < '0' || t[i] > '9')
            return false;
    *file = t.substr(0, colon);
    *line = uint32_t(std::strtoul(t.c_str() + colon + 1, nullptr, 10));
    return true;
}

// The instructions' lines and inline chains from debug_file through
// libdwfl: the module mapped at its own ELF addresses (segment seg).
void lines_from_debug_file(const std::string &module, const std::string &debug_file,
                           const Segment &seg, std::vector<Instruction> *instructions) {
    symbolize::Mapping m;
    m.path = module;
    m.build_id = symbolize::read_build_id(module);
    m.start = seg.vaddr;
    m.end = seg.vaddr + seg.filesz;
    m.file_offset = seg.offset;
    m.debug_file = debug_file;
    symbolize::Session session({m});
    for (Instruction &i : *instructions) {
        symbolize::Location loc = session.resolve(i.address, false);
        if (loc.frames.empty())
            continue;
        // Innermost first: the function's own line is the outermost
        // frame's (the inlined call's line for inlined code).
        const symbolize::Frame &outer = loc.frames.back();
        i.file = outer.file;
        i.line = uint32_t(outer.line);
        if (loc.frames.size() > 1) {
            const symbolize::Frame &inner = loc.frames.front();
            i.inlined_from = inner.function + (inner.function.ends_with(')') ? "" : "()") + " " +
                             inner.file + ":" + std::to_string(inner.line);
            i.inner_file = inner.file;
            i.inner_line = uint32_t(inner.line);
        }
    }
}

} // namespace

std::string rename_targets(const std::string &text, uint64_t start, uint64_t end,
                           const std::function<std::string(uint64_t)> &name_of) {
    // "OPCODE  ADDR <NAME+0xOFF>" (or "# ADDR <NAME>" after a rip-relative
    // operand): the hex address right before " <".
    const size_t open = text.find(" <");
    const size_t close = open == std::string::npos ? open : text.find('>', open);
    if (close == std::string::npos)
        return text;
    size_t from = open;
    while (from > 0 && std::isxdigit(static_cast<unsigned char>(text[from - 1])))
        --from;
    const std::string name = text.substr(open + 2, close - open - 2);
    if (from == open)
        return text;
    const uint64_t target = std::strtoull(text.substr(from, open - from).c_str(), nullptr, 16);
    std::string renamed;
    const std::string known = name_of && !(target >= start && target < end) ? name_of(target) : "";
    if (target >= start && target < end) {
        char rel[32];
        std::snprintf(rel, sizeof rel, " <+0x%" PRIx64 ">", target - start);
        renamed = rel;
    } else if (!known.empty()) {
        renamed = " <" + known + ">";
    } else if (name.find("+0x") == std::string::npos) {
        renamed = " <" + name + ">";
    }
    return text.substr(0, open) + renamed + text.substr(close + 1);
}

std::vector<Instruction> parse_objdump(const std::string &text) {
    std::vector<Instruction> out;
    std::istringstream in(text);
    std::string line, function, inner_file, outer_file;
    uint32_t inner_line = 0, outer_line = 0;
    bool inlined = false;
    while (std::getline(in, line)) {
        if (line.empty())
            continue;
        unsigned long long addr = 0;
        int text_at = 0;
        if (line[0] == ' ' && std::sscanf(line.c_str(), " %llx:\t%n", &addr, &text_at) == 1 &&
            text_at > 0) {
            Instruction i;
            i.address = addr;
            i.text = line.substr(size_t(text_at));
            while (!i.text.empty() && (i.text.back() == ' ' || i.text.back() == '\t'))
                i.text.pop_back();
            i.file = outer_file;
            i.line = outer_line;
            if (inlined) {
                i.inlined_from = function;
                i.inlined_from += " " + inner_file + ":" + std::to_string(inner_line);
                i.inner_file = inner_file;
                i.inner_line = inner_line;
            }
            out.push_back(std::move(i));
            continue;
        }
        if (line.rfind("inlined by ", 0) == 0) {
            if (parse_location(line.substr(11), &outer_file, &outer_line))
                inlined = true;
            continue;
        }
        if (line.size() > 3 && line.compare(line.size() - 3, 3, "():") == 0) {
            function = line.substr(0, line.size() - 1);
            continue;
        }
        std::string f;
        uint32_t l = 0;
        if (line[0] != ' ' && line.find('<') == std::string::npos && parse_location(line, &f, &l)) {
            inner_file = outer_file = f;
            inner_line = outer_line = l;
            inlined = false;
        }
    }
    return out;
}

Disassembly disassemble(const std::string &module, uint64_t offset,
                        const DisassemblyOptions &options) {
    Disassembly d;
    d.module = module;
    struct stat st {};
    if (module.empty() || module[0] != '/' || ::stat(module.c_str(), &st) != 0) {
        d.error = module.empty() ? "the code lies in no module"
                                 : module + ": not found (the module is not on this machine)";
        return d;
    }
    if (!S_ISREG(st.st_mode)) {
        d.error = module + ": not a regular file; not disassembled";
        return d;
    }
    ToolResult p = run_tool({"objdump", "-p", module}, size_t{16} << 20, 30000);
    if (!p.ran || p.status != 0) {
        d.error = p.error.empty() ? "objdump -p " + module + " failed: " + p.err : p.error;
        return d;
    }
    std::vector<Segment> segs = load_segments(p.out);
    std::optional<int64_t> bias; // vaddr - offset in the segment that holds offset
    for (const Segment &s : segs)
        if (offset >= s.offset && offset < s.offset + s.filesz)
            bias = int64_t(s.vaddr - s.offset);
    if (!bias) {
        d.error = module + ": no loadable segment holds file offset 0x" + [&] {
            char b[24];
            std::snprintf(b, sizeof b, "%" PRIx64, offset);
            return std::string(b);
        }() + " (the file changed since the recording?)";
        return d;
    }
    uint64_t vaddr = offset + uint64_t(*bias);
    Segment segment;
    for (const Segment &s : segs)
        if (offset >= s.offset && offset < s.offset + s.filesz)
            segment = s;
    // A module without DWARF of its own: its separate debug file, from
    // this machine's debug directories, libdebuginfod's cache, or a server.
    bool own_dwarf = false;
    std::string why_no_debug_file;
    d.debug_file = symbolize::find_debug_file(module, options.debug_dirs, &own_dwarf);
    if (d.debug_file.empty() && !own_dwarf) {
        const std::string build_id = symbolize::read_build_id(module);
        d.debug_file = symbolize::debuginfod_cached_debug_file(build_id);
        if (!d.debug_file.empty()) {
            d.debug_from = "from debuginfod's cache";
        } else if (options.debuginfod != nullptr && !build_id.empty()) {
            symbolize::Fetched f = options.debuginfod->find_debuginfo(
                build_id, "the debug file of " + std::filesystem::path(module).filename().string());
            d.debug_file = f.path;
            d.debug_from = f.path.empty() ? "" : "fetched from " + f.server;
            if (f.path.empty())
                why_no_debug_file = "debuginfod servers: " + f.error;
        }
    }
    std::vector<Symbol> syms, debug_syms; // debug_syms: when the debug file's named it
    bool fde_extent = false;              // no symbol: the extent of the call-frame information
    // The full symbol table, the debug file's, then the dynamic one (a
    // stripped library).
    std::vector<std::pair<std::string, bool>> tables = {{module, false}};
    if (!d.debug_file.empty())
        tables.emplace_back(d.debug_file, false);
    tables.emplace_back(module, true);
    for (const auto &[file, dynamic] : tables) {
        std::vector<std::string> argv = {"nm", "-S", "-C", "--defined-only", file};
        if (dynamic)
            argv.insert(argv.begin() + 1, "--dynamic");
        ToolResult n = run_tool(argv, size_t{256} << 20, 30000);
        syms.clear();
        if (n.ran && n.status == 0)
            syms = code_symbols(n.out);
        auto holds = [&](const Symbol &s) { return vaddr >= s.start && vaddr < s.start + s.size; };
        auto it = std::find_if(syms.begin(), syms.end(), holds);
        if (it != syms.end()) {
            d.symbol = it->name;
            d.start = it->start;
            d.end = it->start + it->size;
            if (file != module)
                debug_syms = std::move(syms);
            break;
        }
    }
    if (d.symbol.empty()) {
        // A stripped file: the extent its call-frame information gives the
        // function, named as the profile names it (module+0xSTART).
        if (auto fde = symbolize::fde_range(module, vaddr)) {
            fde_extent = true;
            char name[64];
            std::snprintf(name, sizeof name, "+0x%" PRIx64, uint64_t(int64_t(fde->first) - *bias));
            d.symbol = std::filesystem::path(module).filename().string() + name +
                       " (no symbol: the extent of its call-frame information)";
            d.start = fde->first;
            d.end = fde->second;
        }
    }
    if (d.symbol.empty()) {
        d.error = module +
                  ": no symbol holds the sampled code, nor call-frame information "
                  "(stripped: install its -dbgsym package, or name a debuginfod server "
                  "in DEBUGINFOD_URLS)" +
                  (why_no_debug_file.empty() ? "" : "; " + why_no_debug_file);
        return d;
    }
    char from[32], to[32];
    std::snprintf(from, sizeof from, "--start-address=0x%" PRIx64, d.start);
    std::snprintf(to, sizeof to, "--stop-address=0x%" PRIx64, d.end);
    // objdump finds lines in the module itself and under /usr/lib/debug
    // only: a separate debug file's lines come from libdwfl.
    std::vector<std::string> argv = {"objdump", "-d", "-C", "--no-show-raw-insn", from, to, module};
    if (d.debug_file.empty())
        argv.insert(argv.begin() + 2, {"-l", "--inlines"});
    ToolResult o = run_tool(argv);
    if (!o.ran || o.status != 0) {
        d.error = o.error.empty() ? "objdump -d " + module + " failed: " + o.err : o.error;
        return d;
    }
    d.instructions = parse_objdump(o.out);
    if (!d.debug_file.empty())
        lines_from_debug_file(module, d.debug_file, segment, &d.instructions);
    // An extent from call-frame information runs to the next function:
    // its alignment padding is not the function's.
    auto padding = [](const std::string &text) {
        return text == "int3" || text.starts_with("nop") ||
               text.find(" nop") != std::string::npos || text.starts_with("xchg   %ax,%ax");
    };
    while (fde_extent && !d.instructions.empty() && padding(d.instructions.back().text)) {
        d.end = d.instructions.back().address;
        d.instructions.pop_back();
    }
    // objdump names targets after the module's own symbols: in a stripped
    // module some unrelated exported one.  The debug file's name them.
    std::sort(debug_syms.begin(), debug_syms.end(),
              [](const Symbol &a, const Symbol &b) { return a.start < b.start; });
    auto debug_name = [&](uint64_t target) -> std::string {
        auto it = std::upper_bound(debug_syms.begin(), debug_syms.end(), target,
                                   [](uint64_t t, const Symbol &s) { return t < s.start; });
        if (it == debug_syms.begin())
            return "";
        --it;
        if (target >= it->start + it->size)
            return "";
        if (target == it->start)
            return it->name;
        char off[32];
        std::snprintf(off, sizeof off, "+0x%" PRIx64, target - it->start);
        return it->name + off;
    };
    for (Instruction &i : d.instructions) {
        i.offset = i.address - uint64_t(*bias);
        if (fde_extent)
            i.text = rename_targets(i.text, d.start, d.end);
        else if (!debug_syms.empty())
            i.text = rename_targets(i.text, d.start, d.end, debug_name);
    }
    if (d.instructions.empty())
        d.error = module + ": objdump showed no instructions for " + d.symbol;
    return d;
}

} // namespace cpcprof::analysis
