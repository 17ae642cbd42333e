// SPDX-License-Identifier: MIT
// cpcprof diff: the table of changes, the differential flame graph, the gate.
#include "profiler/diff/diff.h"

#include "profiler/analysis/diff_model.h"
#include "profiler/diff/diff_flame.h"
#include "profiler/diff/diff_options.h"
#include "profiler/diff/diff_output.h"

#include <algorithm>
#include <cstdio>
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

// The index in c.events of the event --event names (exact, then ignoring
// case), or of the first common event; -1 with a message when neither
// profile or only one has it.
int weighing_event(const analysis::Comparison &c, const DiffOptions &o, const analysis::Query &base,
                   const analysis::Query &now) {
    if (o.view.event.empty())
        return 0;
    for (size_t i = 0; i < c.events.size(); ++i)
        if (c.events[i] == o.view.event)
            return int(i);
    for (size_t i = 0; i < c.events.size(); ++i)
        if (strcasecmp(c.events[i].c_str(), o.view.event.c_str()) == 0)
            return int(i);
    bool in_base = base.event_index(o.view.event) >= 0, in_new = now.event_index(o.view.event) >= 0;
    std::string where = in_base  ? "is only in " + o.base
                        : in_new ? "is only in " + o.now
                                 : "is in neither profile";
    std::fprintf(stderr, "cpcprof diff: event '%s' %s; both have: %s\n", o.view.event.c_str(),
                 where.c_str(), joined(c.events).c_str());
    return -1;
}

// false with a message when a side has nothing to take shares of.
bool comparable(const analysis::Comparison &c, size_t e, const analysis::Query &q,
                const analysis::SideInfo &side) {
    if (side.samples == 0) {
        std::fprintf(stderr,
                     "cpcprof diff: %s: no sample is left after the filter (%llu in the file); "
                     "nothing to compare\n",
                     side.file.c_str(), static_cast<unsigned long long>(q.samples_read()));
        return false;
    }
    if (side.totals[e] == 0) {
        std::fprintf(stderr,
                     "cpcprof diff: %s: event %s counted nothing in the kept samples, so it has "
                     "no shares; pick another with --event (both have: %s)\n",
                     side.file.c_str(), c.events[e].c_str(), joined(c.events).c_str());
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
    auto base = view::open_profile("diff", o.base, o.view);
    if (!base)
        return view::kExitFailed;
    auto now = view::open_profile("diff", o.now, o.view);
    if (!now)
        return view::kExitFailed;
    for (const auto &[q, file] : {std::pair{base.get(), &o.base}, std::pair{now.get(), &o.now}})
        if (q->events().empty()) {
            std::fprintf(stderr,
                         "cpcprof diff: %s: the recording stopped before it began; no "
                         "events or samples\n",
                         file->c_str());
            return view::kExitFailed;
        }

    analysis::Comparison c = analysis::compare(*base, o.base, *now, o.now);
    if (c.events.empty()) {
        std::fprintf(stderr,
                     "cpcprof diff: no event in common: %s has %s, %s has %s; record both with "
                     "the same -e to compare them\n",
                     o.base.c_str(), event_names(*base).c_str(), o.now.c_str(),
                     event_names(*now).c_str());
        return view::kExitFailed;
    }
    if (!c.only_base.empty() || !c.only_new.empty())
        std::fprintf(stderr,
                     "cpcprof diff: the profiles' events differ (only in %s: %s; only in %s: %s); "
                     "comparing the common ones: %s\n",
                     o.base.c_str(), joined(c.only_base).c_str(), o.now.c_str(),
                     joined(c.only_new).c_str(), joined(c.events).c_str());
    int e = weighing_event(c, o, *base, *now);
    if (e < 0)
        return view::kExitUsage;
    if (!comparable(c, size_t(e), *base, c.base) || !comparable(c, size_t(e), *now, c.now))
        return view::kExitFailed;

    TableInput t{c, size_t(e), {}, o.fail_above, {}};
    for (const auto &f : c.functions)
        t.rows.push_back(&f);
    analysis::sort_by_change(c, t.event, &t.rows);
    if (o.top != 0 && t.rows.size() > o.top)
        t.rows.resize(o.top);
    if (o.fail_above)
        t.grown = analysis::grown_above(c, t.event, *o.fail_above);

    if (!o.flame.empty()) {
        FlameInput in{*base,
                      *now,
                      base->event_index(c.events[t.event]),
                      now->event_index(c.events[t.event]),
                      c.events[t.event],
                      o.base,
                      o.now};
        if (!view::write_output("diff", o.flame, diff_flame_html(in)))
            return view::kExitFailed;
    }
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
