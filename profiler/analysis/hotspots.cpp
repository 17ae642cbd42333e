// SPDX-License-Identifier: MIT
#include "profiler/analysis/hotspots.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string_view>
#include <tuple>

namespace cpcprof::analysis {

using analysis::Cost;
using analysis::Query;

namespace {

Cost zero(const Query &q) {
    return Cost{0, std::vector<uint64_t>(q.events().size())};
}

std::vector<HotspotRow> function_rows(const Query &q) {
    const auto &fns = q.functions();
    std::vector<HotspotRow> rows(fns.size());
    // Where a function's cost is: its line with the most self samples,
    // then the most total samples.
    std::vector<const Query::LineCost *> hottest(fns.size(), nullptr);
    std::vector<Query::LineCost> lines = q.line_costs();
    for (const auto &lc : lines) {
        const Query::LineCost *&h = hottest[lc.function];
        if (lc.line != 0 && (h == nullptr || std::tie(lc.self.samples, lc.total.samples) >
                                                 std::tie(h->self.samples, h->total.samples)))
            h = &lc;
    }
    for (uint32_t f = 0; f < fns.size(); ++f) {
        HotspotRow &r = rows[f];
        r.function = fns[f].name;
        r.function_index = f;
        r.module = fns[f].module;
        r.file = hottest[f] ? q.files()[hottest[f]->file] : fns[f].file;
        r.line = hottest[f] ? hottest[f]->line : 0;
        r.self = q.function_self()[f];
        r.total = q.function_total()[f];
    }
    std::erase_if(rows, [](const HotspotRow &r) { return r.total.empty(); });
    return rows;
}

std::vector<HotspotRow> line_rows(const Query &q) {
    std::vector<HotspotRow> rows;
    for (auto &lc : q.line_costs()) {
        HotspotRow r;
        r.function = q.functions()[lc.function].name;
        r.function_index = lc.function;
        r.module = q.functions()[lc.function].module;
        r.file = q.files()[lc.file];
        r.line = lc.line;
        r.self = std::move(lc.self);
        r.total = std::move(lc.total);
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<HotspotRow> module_rows(const Query &q) {
    std::map<std::string, HotspotRow> by_module;
    auto at = [&](const std::string &m) -> HotspotRow & {
        auto [it, fresh] = by_module.try_emplace(m);
        if (fresh) {
            it->second.module = m;
            it->second.self = zero(q);
            it->second.total = zero(q);
        }
        return it->second;
    };
    const auto &fns = q.functions();
    for (uint32_t f = 0; f < fns.size(); ++f)
        at(fns[f].module).self.add(q.function_self()[f]);
    // A module's total counts each sample once however many of its
    // frames the stack holds: one walk over the stacks' trie.
    std::map<std::string_view, uint32_t> module_key;
    std::vector<std::string_view> module_of_key;
    const auto &nodes = q.frame_nodes();
    std::vector<uint32_t> key(nodes.size(), Query::kNoKey);
    for (size_t v = 1; v < nodes.size(); ++v) {
        const std::string &m = fns[nodes[v].frame.function].module;
        auto [it, fresh] = module_key.try_emplace(m, uint32_t(module_of_key.size()));
        if (fresh)
            module_of_key.push_back(m);
        key[v] = it->second;
    }
    std::vector<analysis::Cost> totals = q.once_per_stack(key, module_of_key.size());
    for (size_t k = 0; k < totals.size(); ++k)
        at(std::string(module_of_key[k])).total.add(totals[k]);
    std::vector<HotspotRow> rows;
    for (auto &[m, r] : by_module)
        rows.push_back(std::move(r));
    std::erase_if(rows, [](const HotspotRow &r) { return r.total.empty(); });
    return rows;
}

std::vector<HotspotRow> thread_rows(const Query &q) {
    std::vector<HotspotRow> rows;
    for (const auto &t : q.threads()) {
        HotspotRow r;
        r.pid = t.pid;
        r.tid = t.tid;
        r.thread = t.name;
        r.self = t.cost;
        r.total = t.cost;
        rows.push_back(std::move(r));
    }
    return rows;
}

// Views, not copies: the sort compares names O(n log n) times.
std::tuple<std::string_view, uint32_t, std::string_view, std::string_view, int>
name_key(const HotspotRow &r, GroupBy by) {
    switch (by) {
    case GroupBy::line:
        return {r.file, r.line, r.function, r.module, 0};
    case GroupBy::module:
        return {r.module, 0u, {}, {}, 0};
    case GroupBy::thread:
        return {{}, 0u, {}, {}, r.tid};
    case GroupBy::function:
        break;
    }
    return {r.function, 0u, r.module, {}, 0};
}

} // namespace

std::vector<HotspotRow> hotspot_rows(const Query &q, GroupBy by) {
    switch (by) {
    case GroupBy::line:
        return line_rows(q);
    case GroupBy::module:
        return module_rows(q);
    case GroupBy::thread:
        return thread_rows(q);
    case GroupBy::function:
        break;
    }
    return function_rows(q);
}

void sort_rows(std::vector<HotspotRow> &rows, GroupBy by, SortKey key, size_t top) {
    auto value = [&](const HotspotRow &r) -> uint64_t {
        const Cost &c = key.kind == SortKey::total ? r.total : r.self;
        if (key.kind == SortKey::samples)
            return c.samples;
        return size_t(key.event) < c.values.size() ? c.values[size_t(key.event)] : 0;
    };
    // Indices are sorted, not rows; the index breaks ties, so the order is
    // that of a stable sort, and only the first `top` need to be in order.
    std::vector<uint32_t> order(rows.size());
    for (uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    auto before = [&](uint32_t ia, uint32_t ib) {
        const HotspotRow &a = rows[ia], &b = rows[ib];
        if (key.kind != SortKey::name) {
            auto ka = std::make_tuple(value(a), a.self.samples, a.total.samples);
            auto kb = std::make_tuple(value(b), b.self.samples, b.total.samples);
            if (ka != kb)
                return ka > kb;
        }
        auto na = name_key(a, by), nb = name_key(b, by);
        if (na != nb)
            return na < nb;
        return ia < ib;
    };
    if (top != 0 && top < order.size()) {
        std::partial_sort(order.begin(), order.begin() + long(top), order.end(), before);
        order.resize(top);
    } else {
        std::sort(order.begin(), order.end(), before);
    }
    std::vector<HotspotRow> sorted;
    sorted.reserve(order.size());
    for (uint32_t i : order)
        sorted.push_back(std::move(rows[i]));
    rows = std::move(sorted);
}

std::string location(const HotspotRow &row) {
    if (row.file.empty())
        return row.line ? "?:" + std::to_string(row.line) : "";
    return row.line ? row.file + ":" + std::to_string(row.line) : row.file;
}

} // namespace cpcprof::analysis

namespace cpcprof::analysis {

bool match_functions(const char *cmd, const analysis::Query &q, const std::string &name,
                     std::vector<uint32_t> *out) {
    std::vector<uint32_t> found = q.find_functions(name);
    // A function the filter left without samples is not offered.
    std::erase_if(found, [&](uint32_t f) { return q.function_total()[f].empty(); });
    if (found.empty()) {
        std::fprintf(stderr, "cpcprof %s: no function named '%s' (nor containing it) has samples\n",
                     cmd, name.c_str());
        return false;
    }
    if (found.size() > kMaxMatches) {
        std::fprintf(stderr,
                     "cpcprof %s: '%s' matches %zu functions; give the exact name of one:\n", cmd,
                     name.c_str(), found.size());
        for (uint32_t f : found)
            std::fprintf(stderr, "  %s  (%s)\n", q.functions()[f].name.c_str(),
                         q.functions()[f].module.c_str());
        return false;
    }
    *out = std::move(found);
    return true;
}

} // namespace cpcprof::analysis
