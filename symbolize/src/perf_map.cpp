// SPDX-License-Identifier: MIT
#include "symbolize/src/perf_map.h"
#include "base/paths.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

namespace cpcprof::symbolize {

namespace {

bool take_hex(std::string_view &s, uint64_t *out) {
    if (s.starts_with("0x") || s.starts_with("0X"))
        s.remove_prefix(2);
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
    if (ec != std::errc() || end == s.data())
        return false;
    s.remove_prefix(static_cast<size_t>(end - s.data()));
    return true;
}

bool take_spaces(std::string_view &s) {
    size_t n = 0;
    while (n < s.size() && (s[n] == ' ' || s[n] == '\t'))
        ++n;
    s.remove_prefix(n);
    return n > 0;
}

struct Range {
    uint64_t end;
    uint32_t name;
};

// Puts [start, end) over whatever it overlaps in ranges (by start).
void overlay(std::map<uint64_t, Range> &ranges, uint64_t start, uint64_t end, uint32_t name) {
    auto it = ranges.lower_bound(start);
    if (it != ranges.begin()) {
        auto prev = std::prev(it);
        if (prev->second.end > start) {
            Range old = prev->second;
            prev->second.end = start;
            if (old.end > end)
                ranges.emplace(end, old);
        }
    }
    it = ranges.lower_bound(start);
    while (it != ranges.end() && it->first < end) {
        Range old = it->second;
        it = ranges.erase(it);
        if (old.end > end) {
            ranges.emplace(end, old);
            break;
        }
    }
    ranges[start] = Range{end, name};
}

} // namespace

PerfMap PerfMap::parse(std::string_view text) {
    PerfMap map;
    std::map<uint64_t, Range> ranges;
    std::map<std::string, uint32_t, std::less<>> ids;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        uint64_t start = 0, size = 0;
        if (!take_hex(line, &start) || !take_spaces(line) || !take_hex(line, &size) ||
            !take_spaces(line) || line.empty() || size == 0 || start + size < start)
            continue;
        auto [id, fresh] = ids.try_emplace(std::string(line), uint32_t(map.names_.size()));
        if (fresh)
            map.names_.emplace_back(line);
        overlay(ranges, start, start + size, id->second);
    }
    map.entries_.reserve(ranges.size());
    for (const auto &[start, r] : ranges)
        map.entries_.push_back({start, r.end, r.name});
    return map;
}

std::optional<PerfMap> PerfMap::load(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad())
        return std::nullopt;
    return parse(text.str());
}

bool PerfMap::is_perf_map_path(std::string_view path) {
    std::string name = base::base_name(path);
    if (!name.starts_with("perf-") || !name.ends_with(".map"))
        return false;
    std::string_view digits = std::string_view(name).substr(5, name.size() - 9);
    return !digits.empty() &&
           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const std::string *PerfMap::find(uint64_t address) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                               [](uint64_t a, const Entry &e) { return a < e.start; });
    if (it == entries_.begin() || address >= std::prev(it)->end)
        return nullptr;
    return &names_[std::prev(it)->name];
}

} // namespace cpcprof::symbolize
