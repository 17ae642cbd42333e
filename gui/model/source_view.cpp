// SPDX-License-Identifier: MIT
#include "gui/model/source_view.h"

#include <algorithm>
#include <map>
#include <set>

namespace cpcprof::gui {

int SourceView::rowOfLine(uint32_t n) const {
    auto it = std::lower_bound(lines.begin(), lines.end(), n,
                               [](const SourceLine &l, uint32_t v) { return l.line < v; });
    return it != lines.end() && it->line == n ? int(it - lines.begin()) : -1;
}

SourceView source_view(const analysis::Query &q, uint32_t fn, const analysis::SourceRoots &roots,
                       int event, symbolize::DebuginfodClient *client) {
    SourceView v;
    v.function = fn;
    std::vector<analysis::Query::LineCost> costs = analysis::function_line_costs(q, fn);
    // The file where fn's cost is: most total samples, then its own file.
    std::map<uint32_t, uint64_t> by_file;
    for (const auto &c : costs)
        by_file[c.file] += c.total.samples;
    const std::string &own = q.functions()[fn].file;
    uint32_t file = 0;
    uint64_t best = 0;
    for (const auto &[f, n] : by_file)
        if (f != 0 && (n > best || (n == best && q.files()[f] == own))) {
            file = f;
            best = n;
        }
    v.stored_path = file != 0 ? q.files()[file] : own;
    for (const auto &[f, n] : by_file)
        if (f != 0 && f != file)
            v.other_files.push_back(q.files()[f]);

    analysis::SourceFile src = analysis::open_source(v.stored_path, roots, client,
                                                     q.functions()[fn].module, &v.fetched_from);
    v.shown_path = src.path;
    v.why_not = src.why_not;
    std::map<uint32_t, const analysis::Query::LineCost *> cost_of;
    for (const auto &c : costs)
        if (c.file == file && c.line != 0)
            cost_of[c.line] = &c;
    const size_t ne = q.events().size();
    auto make = [&](uint32_t n, std::string text) {
        SourceLine l;
        l.line = n;
        l.text = std::move(text);
        auto it = cost_of.find(n);
        if (it != cost_of.end()) {
            l.has_cost = true;
            l.self = it->second->self;
            l.total = it->second->total;
        } else {
            l.self = l.total = analysis::Cost{0, std::vector<uint64_t>(ne)};
        }
        return l;
    };
    if (!src.path.empty()) {
        for (size_t i = 0; i < src.lines.size(); ++i)
            v.lines.push_back(make(uint32_t(i + 1), std::move(src.lines[i])));
        for (const auto &[n, c] : cost_of) // lines past the file's end (it changed)
            if (n > src.lines.size())
                v.lines.push_back(
                    make(n, "(past the file's end: it changed since the recording?)"));
    } else {
        for (const auto &[n, c] : cost_of)
            v.lines.push_back(make(n, ""));
    }

    // Hot lines by the event's self cost, else its total.
    size_t e = size_t(std::max(event, 0));
    bool any_self = std::any_of(v.lines.begin(), v.lines.end(), [&](const SourceLine &l) {
        return e < l.self.values.size() && l.self.values[e] != 0;
    });
    std::vector<size_t> order;
    for (size_t i = 0; i < v.lines.size(); ++i)
        if (v.lines[i].has_cost)
            order.push_back(i);
    auto value = [&](size_t i) {
        const analysis::Cost &c = any_self ? v.lines[i].self : v.lines[i].total;
        return e < c.values.size() ? c.values[e] : 0;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return value(a) > value(b); });
    for (size_t k = 0; k < order.size() && k < kHotLines; ++k)
        if (value(order[k]) != 0)
            v.lines[order[k]].hot_rank = int(k + 1);

    // Calls inlined at each line: frames of other functions marked inlined
    // whose caller frame is fn in this file.
    const auto &nodes = q.frame_nodes();
    std::map<uint32_t, std::set<uint32_t>> inlined;
    for (size_t n = 1; n < nodes.size(); ++n) {
        const auto &f = nodes[n];
        if (!f.frame.inlined || f.parent == 0)
            continue;
        const auto &p = nodes[f.parent].frame;
        if (p.function == fn && p.file == file && p.line != 0)
            inlined[p.line].insert(f.frame.function);
    }
    for (const auto &[line, fns] : inlined) {
        int row = v.rowOfLine(line);
        if (row >= 0)
            v.lines[size_t(row)].inlined.assign(fns.begin(), fns.end());
    }
    return v;
}

DisassemblyView disassembly_view(const analysis::Query &q, uint32_t fn,
                                 const analysis::DisassemblyOptions &options) {
    DisassemblyView d;
    d.function = fn;
    int64_t module_id = 0;
    std::string module;
    uint64_t offset = 0;
    if (!analysis::hottest_code(q, fn, &module_id, &module, &offset)) {
        d.code.error = "no sampled code of " + q.functions()[fn].name + " lies in a module";
        return d;
    }
    d.code = analysis::disassemble(module, offset, options);
    if (d.code.error.empty())
        d.costs = analysis::instruction_costs(q, module_id, d.code);
    return d;
}

} // namespace cpcprof::gui
