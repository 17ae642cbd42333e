// SPDX-License-Identifier: MIT
// cpcprof report: the hotspot table or a caller/callee tree.
#include "profiler/report/report.h"

#include "profiler/report/call_trees.h"
#include "profiler/report/report_output.h"

#include <cstdio>

namespace cpcprof::report {

namespace {

// The order --sort names; false (message printed) for an unknown event.
bool sort_key(const analysis::Query &q, const ReportOptions &o, int weigh, analysis::SortKey *key) {
    key->event = weigh;
    if (o.sort == "self" || o.sort == "total") {
        key->kind = o.sort == "self" ? analysis::SortKey::self : analysis::SortKey::total;
        return true;
    }
    if (o.sort == "samples" || o.sort == "name") {
        key->kind = o.sort == "samples" ? analysis::SortKey::samples : analysis::SortKey::name;
        return true;
    }
    int e = q.event_index(o.sort);
    if (e < 0) {
        std::string known;
        for (const auto &ev : q.events())
            known += ", " + ev.name;
        std::fprintf(stderr,
                     "cpcprof report: --sort '%s': expected self, total, samples, name or an "
                     "event of this profile%s\n",
                     o.sort.c_str(), known.c_str());
        return false;
    }
    key->kind = analysis::SortKey::self;
    key->event = e;
    return true;
}

} // namespace

int report_main(const std::vector<std::string> &args) {
    ReportOptions o;
    int parsed = parse_report_options(args, &o), status = view::kExitOk;
    auto q = view::open_parsed("report", parsed, o.file, o.view, &status);
    if (!q)
        return status;
    if (q->events().empty()) {
        std::fprintf(stderr,
                     "cpcprof report: %s: the recording stopped before it began; no "
                     "events or samples\n",
                     o.file.c_str());
        return view::kExitFailed;
    }
    int weigh = view::pick_event("report", *q, o.view);
    analysis::SortKey key;
    if (weigh < 0 || !sort_key(*q, o, weigh, &key))
        return view::kExitUsage;
    ReportContext c{*q, o, weigh, derived_columns(q->events())};

    std::string out;
    const std::string &fn = o.callers.empty() ? o.callees : o.callers;
    if (q->total().empty()) { // no sample, no off-CPU time
        std::fprintf(stderr,
                     "cpcprof report: %s: no sample is left after the filter (%llu in "
                     "the file)\n",
                     o.file.c_str(), static_cast<unsigned long long>(q->samples_read()));
        out = render_table(c, {}, 0);
    } else if (!fn.empty()) {
        std::vector<uint32_t> fns;
        if (!analysis::match_functions("report", *q, fn, &fns))
            return view::kExitFailed;
        out = render_trees(c, o.callers.empty() ? TreeKind::callees : TreeKind::callers, fn, fns);
    } else {
        std::vector<analysis::HotspotRow> rows = analysis::hotspot_rows(*q, o.by);
        size_t all = rows.size();
        analysis::sort_rows(rows, o.by, key, o.top);
        out = render_table(c, rows, all);
    }
    return view::write_output("report", o.output, out) ? view::kExitOk : view::kExitFailed;
}

} // namespace cpcprof::report
