// SPDX-License-Identifier: MIT
// What `cpcprof diff` prints: the table of changes (text or JSON) on
// stdout, the --fail-above summary on stderr, and the CI formats (JUnit
// XML, a Markdown summary).  Columns and keys are documented in
// docs/profiler.md ("cpcprof diff").
#pragma once

#include "profiler/analysis/diff_model.h"
#include "profiler/analysis/gate.h"

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::diff {

struct TableInput {
    const analysis::Comparison &c;
    size_t event = 0;                                 // the weighing event: index in c.events
    std::vector<const analysis::FunctionDiff *> rows; // sorted and cut to --top
    analysis::GateOptions gate;                       // threshold: --fail-above
    std::vector<analysis::Regression> grown;          // regressions, largest first
};

std::string render_text(const TableInput &t);
std::string render_json(const TableInput &t);

// The --fail-above summary: what grew, largest first, at most `lines` rows.
std::string regression_summary(const TableInput &t, size_t lines);

// JUnit XML: a test case per function of the table and per regression, for
// the weighing event; a regression is a failure whose message gives the
// change and its interval.
std::string render_junit(const TableInput &t);
// A Markdown job summary: the verdict, the test, the biggest changes.
std::string render_markdown(const TableInput &t);

// "+2.50" / "-0.31" / "0.00"; "-" for nothing.
std::string signed_fixed(std::optional<double> v);
// "[+0.50, +1.96]"; "-" for nothing.
std::string interval_text(const std::optional<analysis::Judgement> &j);
// "the 99 % interval"
std::string confidence_text(double confidence);

} // namespace cpcprof::diff
