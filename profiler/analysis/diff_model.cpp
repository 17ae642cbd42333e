// SPDX-License-Identifier: MIT
#include "profiler/analysis/diff_model.h"

#include "profiler/analysis/table_format.h" // basename_of

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace cpcprof::analysis {

using analysis::Query;

const char *FunctionDiff::status() const {
    if (base.present && now.present)
        return "";
    return now.present ? "new" : "gone";
}

std::optional<double> Comparison::share(const SideInfo &side, const std::vector<uint64_t> &values,
                                        size_t e) const {
    if (e >= side.totals.size() || side.totals[e] == 0)
        return std::nullopt;
    return double(e < values.size() ? values[e] : 0) / double(side.totals[e]);
}

std::optional<double> Comparison::points(const FunctionDiff &f, size_t e, bool self) const {
    auto b = share(base, self ? f.base.self : f.base.total, e);
    auto n = share(now, self ? f.now.self : f.now.total, e);
    if (!b || !n)
        return std::nullopt;
    return (*n - *b) * 100.0;
}

std::optional<double> Comparison::per_second(const SideInfo &side, uint64_t value) const {
    if (!side.seconds || *side.seconds <= 0)
        return std::nullopt;
    return double(value) / *side.seconds;
}

std::optional<double> covered_seconds(const Query &q) {
    const auto &r = q.reader();
    if (!r.end_ns())
        return std::nullopt;
    int64_t from = 0, to = r.since_start(*r.end_ns());
    if (q.filter().from_ns)
        from = std::min(*q.filter().from_ns, to);
    if (q.filter().to_ns)
        to = std::min(*q.filter().to_ns, to);
    if (to <= from)
        return std::nullopt;
    return double(to - from) / 1e9;
}

namespace {

using Key = std::pair<std::string, std::string>; // (name, module basename)

// Per common event e, the index of that event in q (by exact name).
std::vector<int> event_map(const Query &q, const std::vector<std::string> &events) {
    std::vector<int> out;
    for (const auto &name : events)
        for (size_t i = 0; i < q.events().size(); ++i)
            if (q.events()[i].name == name) {
                out.push_back(int(i));
                break;
            }
    return out;
}

RunInfo run_info(const Query &q, const std::string &file, const std::vector<int> &map) {
    RunInfo s;
    s.file = file;
    s.samples = q.samples_kept();
    for (int i : map) {
        s.totals.push_back(q.total().values[size_t(i)]);
        s.observations.push_back(q.observations(q.total(), size_t(i)));
    }
    s.seconds = covered_seconds(q);
    return s;
}

SideInfo side_info(const std::vector<ProfileRun> &runs, const std::vector<std::vector<int>> &maps,
                   size_t events) {
    SideInfo s;
    s.totals.assign(events, 0);
    s.observations.assign(events, 0);
    s.seconds = 0.0;
    for (size_t r = 0; r < runs.size(); ++r) {
        RunInfo run = run_info(*runs[r].query, runs[r].file, maps[r]);
        if (r == 0)
            s.file = run.file;
        s.samples += run.samples;
        for (size_t e = 0; e < events; ++e) {
            s.totals[e] += run.totals[e];
            s.observations[e] += run.observations[e];
        }
        s.seconds =
            s.seconds && run.seconds ? std::optional(*s.seconds + *run.seconds) : std::nullopt;
        s.runs.push_back(std::move(run));
    }
    return s;
}

// Adds run `run` (of `runs`) of q's functions into the side chosen by
// pick.  Functions that share a key (one library at two paths in two
// processes) are summed.
template <typename Pick>
void add_functions(const Query &q, const std::vector<int> &map, size_t run, size_t runs,
                   std::map<Key, FunctionDiff> *out, Pick pick) {
    const auto &fns = q.functions();
    const size_t events = map.size();
    for (size_t f = 0; f < fns.size(); ++f) {
        const analysis::Cost &self = q.function_self()[f];
        const analysis::Cost &total = q.function_total()[f];
        if (total.empty())
            continue;
        Key key{fns[f].name, analysis::basename_of(fns[f].module)};
        FunctionDiff &d = (*out)[key];
        d.name = key.first;
        d.module = key.second;
        SideCost &side = pick(d);
        if (!side.present) {
            side.present = true;
            side.self.assign(events, 0);
            side.total.assign(events, 0);
            side.self_observations.assign(events, 0);
            side.total_observations.assign(events, 0);
            side.run_self.assign(runs * events, 0);
            side.run_total.assign(runs * events, 0);
        }
        side.self_samples += self.samples;
        side.total_samples += total.samples;
        for (size_t e = 0; e < events; ++e) {
            const uint64_t sv = self.values[size_t(map[e])], tv = total.values[size_t(map[e])];
            side.self[e] += sv;
            side.total[e] += tv;
            side.self_observations[e] += q.observations(self, size_t(map[e]));
            side.total_observations[e] += q.observations(total, size_t(map[e]));
            side.run_self[run * events + e] += sv;
            side.run_total[run * events + e] += tv;
        }
    }
}

} // namespace

Comparison compare(const Query &base, const std::string &base_file, const Query &now,
                   const std::string &new_file) {
    return compare_runs({{&base, base_file}}, {{&now, new_file}});
}

Comparison compare_runs(const std::vector<ProfileRun> &base, const std::vector<ProfileRun> &now) {
    Comparison c;
    auto in = [](const Query &q, const std::string &name) {
        return std::any_of(q.events().begin(), q.events().end(),
                           [&](const storage::EventInfo &e) { return e.name == name; });
    };
    auto in_all = [&](const std::vector<ProfileRun> &runs, const std::string &name) {
        return std::all_of(runs.begin(), runs.end(),
                           [&](const ProfileRun &r) { return in(*r.query, name); });
    };
    for (const auto &e : base[0].query->events())
        (in_all(base, e.name) && in_all(now, e.name) ? c.events : c.only_base).push_back(e.name);
    for (const auto &e : now[0].query->events())
        if (!in_all(base, e.name) || !in_all(now, e.name))
            c.only_new.push_back(e.name);

    std::vector<std::vector<int>> base_maps, new_maps;
    for (const ProfileRun &r : base)
        base_maps.push_back(event_map(*r.query, c.events));
    for (const ProfileRun &r : now)
        new_maps.push_back(event_map(*r.query, c.events));
    c.base = side_info(base, base_maps, c.events.size());
    c.now = side_info(now, new_maps, c.events.size());

    std::map<Key, FunctionDiff> fns;
    for (size_t r = 0; r < base.size(); ++r)
        add_functions(*base[r].query, base_maps[r], r, base.size(), &fns,
                      [](FunctionDiff &d) -> SideCost & { return d.base; });
    for (size_t r = 0; r < now.size(); ++r)
        add_functions(*now[r].query, new_maps[r], r, now.size(), &fns,
                      [](FunctionDiff &d) -> SideCost & { return d.now; });
    const size_t events = c.events.size();
    for (auto &[key, d] : fns) {
        for (auto [s, runs] : {std::pair{&d.base, base.size()}, std::pair{&d.now, now.size()}})
            if (!s->present) {
                s->self.assign(events, 0);
                s->total.assign(events, 0);
                s->self_observations.assign(events, 0);
                s->total_observations.assign(events, 0);
                s->run_self.assign(runs * events, 0);
                s->run_total.assign(runs * events, 0);
            }
        c.functions.push_back(std::move(d));
    }
    return c;
}

void sort_by_change(const Comparison &c, size_t e, std::vector<const FunctionDiff *> *rows) {
    auto magnitude = [&](const FunctionDiff *f, bool self) {
        auto p = c.points(*f, e, self);
        return p ? std::fabs(*p) : 0.0;
    };
    std::stable_sort(rows->begin(), rows->end(), [&](const FunctionDiff *a, const FunctionDiff *b) {
        double sa = magnitude(a, true), sb = magnitude(b, true);
        if (sa != sb)
            return sa > sb;
        double ta = magnitude(a, false), tb = magnitude(b, false);
        if (ta != tb)
            return ta > tb;
        if (a->name != b->name)
            return a->name < b->name;
        return a->module < b->module;
    });
}

std::vector<const FunctionDiff *> grown_above(const Comparison &c, size_t e, double points) {
    std::vector<const FunctionDiff *> out;
    for (const auto &f : c.functions) {
        auto p = c.points(f, e, true);
        if (p && *p > points)
            out.push_back(&f);
    }
    std::stable_sort(out.begin(), out.end(), [&](const FunctionDiff *a, const FunctionDiff *b) {
        double pa = *c.points(*a, e, true), pb = *c.points(*b, e, true);
        if (pa != pb)
            return pa > pb;
        return a->name < b->name;
    });
    return out;
}

Rgb change_colour(double points, double largest) {
    if (points == 0)
        return {220, 220, 220};
    double t = std::min(1.0, std::fabs(points) / std::max(largest, 1.0));
    // Pale enough at full strength for black text to stay readable.
    int fade = int(std::lround(215 - 95 * t)), full = int(std::lround(225 + 30 * t));
    return points > 0 ? Rgb{full, fade, fade} : Rgb{fade, fade, full};
}

} // namespace cpcprof::analysis
