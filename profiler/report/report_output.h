// What report prints: the run header, the hotspot table in text, JSON or
// CSV, and the pieces the caller/callee trees share with it.  The columns
// and keys are documented in docs/profiler.md ("cpcprof report").
#pragma once

#include "hotspots.h"
#include "json_layout.h"
#include "report_options.h"
#include "storage/derived.h"

#include <string>
#include <vector>

namespace cpcprof::report {

// The derived ratios are storage's, so that the viewer computes the same.
using storage::derive;
using storage::derived_columns;
using storage::DerivedColumn;
using storage::DerivedValue;

struct ReportContext {
    const storage::Query &q;
    const ReportOptions &options;
    int weigh = 0; // the weighing event (--event): default order, tree shares
    std::vector<DerivedColumn> derived;
};

// "# name: value" lines: file, command, events, samples, duration,
// hardware PMU, modules without symbols, filter.
std::string text_header(const ReportContext &c);

// The members every JSON document starts with ("format" ... "events",
// "derived"), in order.
view::Json preamble_json(const ReportContext &c);
// The same as text: view::json_members lines, the last also ending ",\n".
std::string json_preamble(const ReportContext &c);

// {"samples": N, "values": [...], "shares": [...]}: shares of the kept
// total of each event (null when that total is 0).
view::Json cost_json(const storage::Query &q, const storage::Cost &cost);
// The same on one line (view::json_inline).
std::string json_cost(const storage::Query &q, const storage::Cost &cost);

// The JSON document of the hotspot table (report_json.cpp).
std::string json_table(const ReportContext &c, const std::vector<HotspotRow> &rows,
                       size_t all_rows);

// Seconds from the run's start to its end; nothing when it did not finish.
std::optional<double> duration_s(const storage::Query &q);

// Text table, JSON document or CSV of rows (already sorted and cut to
// --top); all_rows: how many there were before the cut.
std::string render_table(const ReportContext &c, const std::vector<HotspotRow> &rows,
                         size_t all_rows);

// The command line as a shell would take it back ('' around odd words).
std::string shell_words(const std::vector<std::string> &words);

} // namespace cpcprof::report
