// SPDX-License-Identifier: MIT
#include "gui/model/diff_data.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <tuple>

namespace cpcprof::gui {

using analysis::CallTree;
using analysis::Query;

namespace {

// analysis::sort_by_change's order (largest |self change|, then |total
// change|, then name and module), with each change computed once instead of
// in every comparison: the same order, in a fraction of the time.
std::vector<size_t> by_change(const analysis::Comparison &c, size_t e) {
    size_t n = c.functions.size();
    std::vector<double> self(n), total(n);
    for (size_t i = 0; i < n; ++i) {
        auto s = c.points(c.functions[i], e, true), t = c.points(c.functions[i], e, false);
        self[i] = s ? std::fabs(*s) : 0.0;
        total[i] = t ? std::fabs(*t) : 0.0;
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (self[a] != self[b])
            return self[a] > self[b];
        if (total[a] != total[b])
            return total[a] > total[b];
        const analysis::FunctionDiff &fa = c.functions[a], &fb = c.functions[b];
        if (fa.name != fb.name)
            return fa.name < fb.name;
        return fa.module < fb.module;
    });
    return order;
}

std::vector<int> event_map(const Query &q, const std::vector<std::string> &events) {
    std::vector<int> out;
    out.reserve(events.size());
    for (const std::string &name : events)
        out.push_back(q.event_index(name));
    return out;
}

} // namespace

DeltaInput DiffData::node_delta(Tree t, uint32_t node) const {
    return path_delta(match(t), node);
}

DeltaInput DiffData::path_delta(const analysis::PathMatch &m, uint32_t node) const {
    DeltaInput in;
    if (node >= m.path_of_node.size()) // also when nothing was matched
        return in;
    size_t ne = comparison.events.size(), p = m.path_of_node[node];
    in.now = {m.now_self.data() + p * ne, m.now_total.data() + p * ne};
    if (m.in_base[p])
        in.base = {m.base_self.data() + p * ne, m.base_total.data() + p * ne};
    return in;
}

DeltaInput DiffData::row_delta(const analysis::FunctionDiff &f) const {
    DeltaInput in;
    if (f.base.present)
        in.base = {f.base.self.data(), f.base.total.data()};
    if (f.now.present)
        in.now = {f.now.self.data(), f.now.total.data()};
    return in;
}

DeltaInput DiffData::function_delta(uint32_t fn) const {
    if (fn >= function_row.size() || function_row[fn] < 0)
        return {};
    return row_delta(comparison.functions[size_t(function_row[fn])]);
}

std::optional<double> DiffData::share(const SideValues &v, bool base_side, size_t e,
                                      bool self) const {
    const analysis::SideInfo &side = base_side ? comparison.base : comparison.now;
    if (e >= side.totals.size() || side.totals[e] == 0)
        return std::nullopt;
    const uint64_t *values = self ? v.self : v.total;
    return double(values ? values[e] : 0) / double(side.totals[e]);
}

std::optional<double> DiffData::points(const DeltaInput &in, size_t e, bool self) const {
    auto b = share(in.base, true, e, self), n = share(in.now, false, e, self);
    if (!b || !n)
        return std::nullopt;
    return (*n - *b) * 100.0;
}

std::optional<analysis::ShareTest> DiffData::test(const DeltaInput &in, size_t e, bool self) const {
    auto b = share(in.base, true, e, self), n = share(in.now, false, e, self);
    if (!b || !n)
        return std::nullopt;
    return analysis::test_share_change(*b, comparison.base.observations[e], *n,
                                       comparison.now.observations[e], confidence);
}

double DiffData::count_change(const DeltaInput &in, size_t e, bool self) const {
    auto value = [&](const SideValues &v) {
        const uint64_t *values = self ? v.self : v.total;
        return values ? double(values[e]) : 0.0;
    };
    return value(in.now) - value(in.base);
}

std::vector<size_t> DiffData::only_in_base(size_t e) const {
    std::vector<size_t> out;
    for (size_t i = 0; i < comparison.functions.size(); ++i)
        if (!comparison.functions[i].now.present)
            out.push_back(i);
    auto self = [&](size_t i) {
        const auto &v = comparison.functions[i].base.self;
        return e < v.size() ? v[e] : 0;
    };
    std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
        if (self(a) != self(b))
            return self(a) > self(b);
        return comparison.functions[a].name < comparison.functions[b].name;
    });
    return out;
}

analysis::PathMatch match_function_tree(const DiffData &d, const CallTree &now_tree, uint32_t fn,
                                        bool callers) {
    const Query &qn = *d.now->query, &qb = *d.base->query;
    if (fn >= qn.functions().size())
        return {};
    analysis::PathKeys keys;
    std::vector<uint32_t> now_keys = keys.of(qn), base_keys = keys.of(qb);
    uint32_t base_fn = 0;
    while (base_fn < base_keys.size() && base_keys[base_fn] != now_keys[fn])
        ++base_fn;
    if (base_fn == base_keys.size())
        return {};
    try {
        CallTree base_tree =
            callers ? CallTree::callers(qb, base_fn) : CallTree::callees(qb, base_fn);
        return analysis::match_paths(now_tree, now_keys, event_map(qn, d.comparison.events),
                                     base_tree, base_keys, event_map(qb, d.comparison.events));
    } catch (const analysis::TooLarge &) {
        return {};
    }
}

std::vector<DeltaColumn> delta_columns(const DiffData &d) {
    std::vector<DeltaColumn> out;
    for (bool share : {true, false})
        for (size_t e = 0; e < d.common.size(); ++e) {
            if (d.common[e] < 0)
                continue;
            const std::string &name = d.comparison.events[size_t(d.common[e])];
            for (bool self : {true, false})
                out.push_back({int(e), size_t(d.common[e]), self, share,
                               std::string("\u0394") + (self ? "self:" : "total:") + name +
                                   (share ? " pp" : "")});
        }
    return out;
}

std::optional<double> delta_value(const DiffData &d, const DeltaColumn &col, const DeltaInput &in) {
    if (col.share)
        return d.points(in, col.common, col.self);
    return d.count_change(in, col.common, col.self);
}

DiffPtr compare_profiles(const ProfilePtr &base, const ProfilePtr &now, std::string *error) {
    if (!base || !now || !base->query || !now->query) {
        *error = "no profile to compare";
        return nullptr;
    }
    auto d = std::make_shared<DiffData>();
    d->base = base;
    d->now = now;
    const Query &qb = *base->query, &qn = *now->query;
    // The common events as analysis::compare makes them (BASE's order), so
    // that the trees are matched while it runs.
    std::vector<std::string> events;
    for (const storage::EventInfo &e : qb.events())
        if (std::any_of(qn.events().begin(), qn.events().end(),
                        [&](const storage::EventInfo &n) { return n.name == e.name; }))
            events.push_back(e.name);
    if (events.empty()) {
        auto names = [](const Query &q) {
            std::string s;
            for (const storage::EventInfo &e : q.events())
                s += (s.empty() ? "" : ", ") + e.name;
            return s.empty() ? std::string("none") : s;
        };
        *error = "no event in common: " + base->path + " has " + names(qb) + ", " + now->path +
                 " has " + names(qn) + "; record both with the same -e to compare them";
        return nullptr;
    }
    // Every function of both keyed once: (name, module basename) -> id.
    analysis::PathKeys keys;
    std::vector<uint32_t> now_keys = keys.of(qn), base_keys = keys.of(qb);
    std::vector<int> now_map = event_map(qn, events), base_map = event_map(qb, events);
    // The call paths on a second thread: everything it reads is immutable
    // or its own, and it is joined before this returns.
    auto trees = std::async(std::launch::async, [&] {
        std::pair<analysis::PathMatch, analysis::PathMatch> m;
        if (now->top_down && base->top_down)
            m.first = analysis::match_paths(*now->top_down, now_keys, now_map, *base->top_down,
                                            base_keys, base_map);
        if (now->bottom_up && base->bottom_up)
            m.second = analysis::match_paths(*now->bottom_up, now_keys, now_map, *base->bottom_up,
                                             base_keys, base_map);
        return m;
    });
    d->comparison = analysis::compare(qb, base->path, qn, now->path);
    const analysis::Comparison &c = d->comparison;
    for (const storage::EventInfo &e : qn.events()) {
        auto it = std::find(c.events.begin(), c.events.end(), e.name);
        d->common.push_back(it == c.events.end() ? -1 : int(it - c.events.begin()));
    }
    std::vector<int> row_of_key(keys.size(), -1);
    for (size_t i = 0; i < c.functions.size(); ++i) {
        uint32_t k = keys.find(c.functions[i].name, c.functions[i].module);
        if (k != analysis::PathKeys::kNone)
            row_of_key[k] = int(i);
    }
    for (uint32_t k : now_keys)
        d->function_row.push_back(row_of_key[k]);
    for (size_t e = 0; e < c.events.size(); ++e)
        d->order.push_back(by_change(c, e));
    std::tie(d->top_down, d->bottom_up) = trees.get();
    if (c.events != events) { // cannot be: the same rule as analysis::compare's
        *error = "the profiles' common events could not be matched";
        return nullptr;
    }
    return d;
}

} // namespace cpcprof::gui
