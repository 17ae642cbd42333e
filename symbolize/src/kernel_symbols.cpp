// SPDX-License-Identifier: MIT
#include "symbolize/src/kernel_symbols.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace cpcprof::symbolize {

namespace {

// One text line of kallsyms, before sorting.
struct Line {
    uint64_t start;
    std::string_view name, module;
    int rank; // lower is preferred at a shared address
    size_t order;
};

// Global before weak before local; fewer leading underscores first.
int rank_of(char type, std::string_view name) {
    int kind = type == 'T' ? 0 : type == 'W' ? 1 : type == 't' ? 2 : 3;
    int underscores = int(std::min<size_t>(name.find_first_not_of('_'), 9));
    return kind * 10 + underscores;
}

// "ADDRESS TYPE NAME[\t[MODULE]]" of a text symbol; false for any other line.
bool parse_line(std::string_view line, Line *out) {
    uint64_t start = 0;
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), start, 16);
    size_t at = size_t(end - line.data());
    if (ec != std::errc() || at + 3 > line.size() || line[at] != ' ' || line[at + 2] != ' ')
        return false;
    char type = line[at + 1];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W')
        return false;
    std::string_view rest = line.substr(at + 3);
    std::string_view name = rest.substr(0, rest.find('\t'));
    std::string_view module;
    if (name.size() < rest.size()) {
        module = rest.substr(name.size() + 1);
        if (module.size() < 2 || module.front() != '[' || module.back() != ']')
            return false;
        module = module.substr(1, module.size() - 2);
    }
    if (name.empty() || name.size() > UINT16_MAX)
        return false;
    *out = {start, name, module, rank_of(type, name), 0};
    return true;
}

} // namespace

KernelSymbols KernelSymbols::parse(std::string_view text) {
    KernelSymbols table;
    std::vector<Line> lines;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        Line l;
        if (!parse_line(line, &l))
            continue;
        if (l.start == 0) {
            ++table.hidden_;
            continue;
        }
        l.order = lines.size();
        lines.push_back(l);
    }
    std::sort(lines.begin(), lines.end(), [](const Line &a, const Line &b) {
        if (a.start != b.start)
            return a.start < b.start;
        return a.rank != b.rank ? a.rank < b.rank : a.order < b.order;
    });
    lines.erase(std::unique(lines.begin(), lines.end(),
                            [](const Line &a, const Line &b) { return a.start == b.start; }),
                lines.end());
    table.entries_.reserve(lines.size());
    std::map<std::string_view, uint16_t> modules; // name -> index in modules_
    for (const Line &l : lines) {
        uint16_t module = 0;
        if (!l.module.empty() && table.modules_.size() <= UINT16_MAX) {
            auto [it, fresh] = modules.try_emplace(l.module, uint16_t(table.modules_.size()));
            if (fresh)
                table.modules_.emplace_back(l.module);
            module = it->second;
        }
        table.entries_.push_back(
            {l.start, uint32_t(table.names_.size()), uint16_t(l.name.size()), module});
        table.names_ += l.name;
    }
    if (!lines.empty()) {
        constexpr uint64_t page = 4096;
        uint64_t last = lines.back().start;
        table.last_end_ =
            last > UINT64_MAX - 2 * page ? UINT64_MAX : (last | (page - 1)) + 1 + page;
    }
    return table;
}

KernelSymbols KernelSymbols::load(const std::string &path, std::string *problem) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *problem = "cannot read " + path + " (" + std::strerror(errno) + ")";
        return {};
    }
    std::ostringstream text;
    text << in.rdbuf();
    KernelSymbols table = parse(text.str());
    if (table.size() == 0 && table.hidden() > 0)
        *problem = path + " shows every address as 0 (kernel.kptr_restrict hides them from this " +
                   "user): root or CAP_SYSLOG (with kernel.kptr_restrict <= 1), or " +
                   "kernel.kptr_restrict=0 and kernel.perf_event_paranoid <= 1 (any user), " +
                   "would show them";
    else if (table.size() == 0)
        *problem = path + " has no text symbols";
    return table;
}

std::optional<KernelSymbols::Symbol> KernelSymbols::find(uint64_t address) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t a, const Entry &e) { return a < e.start; });
    if (it == entries_.begin() || (it == entries_.end() && address >= last_end_))
        return std::nullopt;
    const Entry &e = *std::prev(it);
    return Symbol{std::string_view(names_).substr(e.name, e.name_size), modules_[e.module]};
}

} // namespace cpcprof::symbolize
