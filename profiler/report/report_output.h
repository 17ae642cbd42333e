// SPDX-License-Identifier: MIT
// What report prints: the run header, the hotspot table in text, JSON or
// CSV, and the pieces the caller/callee trees share with it.  The columns
// and keys are documented in docs/profiler.md ("cpcprof report").
#pragma once

#include "profiler/analysis/derived.h"
#include "profiler/analysis/hotspots.h"
#include "profiler/analysis/json_layout.h"
#include "profiler/report/report_options.h"

#include <string>
#include <vector>

namespace cpcprof::report {

// The derived ratios are storage's, so that the viewer computes the same.
using analysis::derive;
using analysis::derived_columns;
using analysis::DerivedColumn;
using analysis::DerivedValue;

struct ReportContext {
    const analysis::Query &q;
    const ReportOptions &options;
    int weigh = 0; // the weighing event (--event): default order, tree shares
    std::vector<DerivedColumn> derived;
};

// "# name: value" lines: file, command, events, samples, duration,
// hardware PMU, modules without symbols, filter.
std::string text_header(const ReportContext &c);

// The members every JSON document starts with ("format" ... "events",
// "derived"), in order.
analysis::Json preamble_json(const ReportContext &c);
// The same as text: analysis::json_members lines, the last also ending ",\n".
std::string json_preamble(const ReportContext &c);

// {"samples": N, "values": [...], "shares": [...]}: shares of the kept
// total of each event (null when that total is 0).
analysis::Json cost_json(const analysis::Query &q, const analysis::Cost &cost);
// The same on one line (analysis::json_inline).
std::string json_cost(const analysis::Query &q, const analysis::Cost &cost);

// The JSON document of the hotspot table (report_json.cpp).
std::string json_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows,
                       size_t all_rows);

// Seconds from the run's start to its end; nothing when it did not finish.
std::optional<double> duration_s(const analysis::Query &q);

// Text table, JSON document or CSV of rows (already sorted and cut to
// --top); all_rows: how many there were before the cut.
std::string render_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows,
                         size_t all_rows);

} // namespace cpcprof::report
