// SPDX-License-Identifier: MIT
// cpcprof diff: the table of changes, the differential flame graph, the gate.
#include "profiler/diff/diff.h"

#include "profiler/analysis/diff_model.h"
#include "profiler/diff/diff_flame.h"
#include "profiler/diff/diff_options.h"
#include "profiler/diff/diff_output.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <strings.h>

namespace cpcprof::diff {

namespace {

constexpr size_t kSummaryLines = 10; // the gate's summary fits a screen

std::string joined(const std::vector<std::string> &words) {
    std::string s;
    for (const auto &w : words)
        s += (s.empty() ? "" : ", ") + w;
    return s.empty() ? "none" : s;
}

std::string event_names(const analysis::Query &q) {
    std::vector<std::string> names;
    for (const auto &e : q.events())
        names.push_back(e.name);
    return joined(names);
}

// The files of runs that record event name.
std::vector<std::string> files_with(const std::vector<analysis::ProfileRun> &runs,
                                    const std::string &name) {
    std::vector<std::string> out;
    for (const auto &r : runs)
        if (r.query->event_index(name) >= 0)
            out.push_back(r.file);
    return out;
}

// The index in c.events of the event --event names (exact, then ignoring
// case), or of the first common event; -1 with a message when no profile
// or only some have it.
int weighing_event(const analysis::Comparison &c, const DiffOptions &o,
                   const std::vector<analysis::ProfileRun> &all) {
    if (o.view.event.empty())
        return 0;
    for (size_t i = 0; i < c.events.size(); ++i)
        if (c.events[i] == o.view.event)
            return int(i);
    for (size_t i = 0; i < c.events.size(); ++i)
        if (strcasecmp(c.events[i].c_str(), o.view.event.c_str()) == 0)
            return int(i);
    std::vector<std::string> having = files_with(all, o.view.event);
    std::string where = having.empty() ? "is in no profile" : "is only in " + joined(having);
    std::fprintf(stderr, "cpcprof diff: event '%s' %s; all have: %s\n", o.view.event.c_str(),
                 where.c_str(), joined(c.events).c_str());
    return -1;
}

// "only in A: x; only in B: y" for two profiles, else which profiles have
// each event that not all have.
std::string events_not_shared(const analysis::Comparison &c,
                              const std::vector<analysis::ProfileRun> &all) {
    std::vector<std::string> names = c.only_base;
    for (const auto &n : c.only_new)
        if (std::find(names.begin(), names.end(), n) == names.end())
            names.push_back(n);
    std::string out;
    if (all.size() == 2) {
        for (const auto &[side, file] :
             {std::pair{&c.only_base, all[0].file}, std::pair{&c.only_new, all[1].file}})
            out += (out.empty() ? "" : "; ") + ("only in " + file + ": ") + joined(*side);
        return out;
    }
    for (const auto &n : names)
        out += (out.empty() ? "" : "; ") + n + " only in " + joined(files_with(all, n));
    return out;
}

// false with a message when a run has nothing to take shares of.
bool comparable(const analysis::Comparison &c, size_t e, const analysis::Query &q,
                const analysis::RunInfo &run) {
    if (run.samples == 0) {
        std::fprintf(stderr,
                     "cpcprof diff: %s: no sample is left after the filter (%llu in the file); "
                     "nothing to compare\n",
                     run.file.c_str(), static_cast<unsigned long long>(q.samples_read()));
        return false;
    }
    if (run.totals[e] == 0) {
        std::fprintf(stderr,
                     "cpcprof diff: %s: event %s counted nothing in the kept samples, so it has "
                     "no shares; pick another with --event (all have: %s)\n",
                     run.file.c_str(), c.events[e].c_str(), joined(c.events).c_str());
        return false;
    }
    return true;
}

} // namespace

int diff_main(const std::vector<std::string> &args) {
    DiffOptions o;
    int parsed = parse_diff_options(args, &o);
    if (parsed <= 0)
        return parsed == 0 ? view::kExitOk : view::kExitUsage;
    std::vector<std::unique_ptr<analysis::Query>> held;
    std::vector<analysis::ProfileRun> base_runs, new_runs;
    for (auto [files, runs] : {std::pair{&o.base, &base_runs}, std::pair{&o.now, &new_runs}})
        for (const std::string &file : *files) {
            auto q = view::open_profile("diff", file, o.view);
            if (!q)
                return view::kExitFailed;
            if (q->events().empty()) {
                std::fprintf(stderr,
                             "cpcprof diff: %s: the recording stopped before it began; no "
                             "events or samples\n",
                             file.c_str());
                return view::kExitFailed;
            }
            runs->push_back({q.get(), file});
            held.push_back(std::move(q));
        }

    analysis::Comparison c = analysis::compare_runs(base_runs, new_runs);
    if (c.events.empty()) {
        std::fprintf(stderr,
                     "cpcprof diff: no event in common: %s has %s, %s has %s; record both with "
                     "the same -e to compare them\n",
                     o.base[0].c_str(), event_names(*base_runs[0].query).c_str(), o.now[0].c_str(),
                     event_names(*new_runs[0].query).c_str());
        return view::kExitFailed;
    }
    std::vector<analysis::ProfileRun> all = base_runs;
    all.insert(all.end(), new_runs.begin(), new_runs.end());
    if (!c.only_base.empty() || !c.only_new.empty())
        std::fprintf(stderr,
                     "cpcprof diff: the profiles' events differ (%s); comparing the common "
                     "ones: %s\n",
                     events_not_shared(c, all).c_str(), joined(c.events).c_str());
    int e = weighing_event(c, o, all);
    if (e < 0)
        return view::kExitUsage;
    for (const auto *runs : {&base_runs, &new_runs})
        for (size_t r = 0; r < runs->size(); ++r) {
            const analysis::SideInfo &side = runs == &base_runs ? c.base : c.now;
            if (!comparable(c, size_t(e), *(*runs)[r].query, side.runs[r]))
                return view::kExitFailed;
        }

    TableInput t{c, size_t(e), {}, {o.metric, o.confidence, o.fail_above}, {}};
    for (const auto &f : c.functions)
        t.rows.push_back(&f);
    analysis::sort_by_change(c, t.event, &t.rows);
    if (o.top != 0 && t.rows.size() > o.top)
        t.rows.resize(o.top);
    t.grown = analysis::regressions(c, t.event, t.gate);

    if (!o.flame.empty()) {
        const analysis::Query &base = *base_runs[0].query, &now = *new_runs[0].query;
        if (base_runs.size() > 1 || new_runs.size() > 1)
            std::fprintf(stderr,
                         "cpcprof diff: the flame graph compares the first run of each side "
                         "(%s and %s), its colours tested on those two runs' samples\n",
                         o.base[0].c_str(), o.now[0].c_str());
        FlameInput in{base,
                      now,
                      base.event_index(c.events[t.event]),
                      now.event_index(c.events[t.event]),
                      c.events[t.event],
                      o.base[0],
                      o.now[0],
                      o.confidence};
        if (!view::write_output("diff", o.flame, diff_flame_html(in)))
            return view::kExitFailed;
    }
    if (!o.junit.empty() && !view::write_output("diff", o.junit, render_junit(t)))
        return view::kExitFailed;
    if (!o.markdown.empty() && !view::write_output("diff", o.markdown, render_markdown(t)))
        return view::kExitFailed;
    if (o.flame != "-") {
        std::string table = o.format == Format::json ? render_json(t) : render_text(t);
        if (!view::write_output("diff", "-", table))
            return view::kExitFailed;
    }
    if (!t.grown.empty()) {
        std::fputs(regression_summary(t, kSummaryLines).c_str(), stderr);
        return kExitRegression;
    }
    return view::kExitOk;
}

} // namespace cpcprof::diff
