// SPDX-License-Identifier: MIT
// What `cpcprof diff` prints: the table of changes (text or JSON) on
// stdout and the --fail-above summary on stderr.  Columns and keys are
// documented in docs/profiler.md ("cpcprof diff").
#pragma once

#include "profiler/analysis/diff_model.h"

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::diff {

struct TableInput {
    const analysis::Comparison &c;
    size_t event = 0;                                 // the weighing event: index in c.events
    std::vector<const analysis::FunctionDiff *> rows; // sorted and cut to --top
    std::optional<double> fail_above;
    std::vector<const analysis::FunctionDiff *> grown; // above fail_above, largest first
};

std::string render_text(const TableInput &t);
std::string render_json(const TableInput &t);

// The --fail-above summary: what grew, largest first, at most `lines` rows.
std::string regression_summary(const TableInput &t, size_t lines);

// "+2.50" / "-0.31" / "0.00"; "-" for nothing.
std::string signed_fixed(std::optional<double> v);

} // namespace cpcprof::diff
