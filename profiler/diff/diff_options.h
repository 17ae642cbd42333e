// SPDX-License-Identifier: MIT
// The options of `cpcprof diff` (docs/profiler.md, "cpcprof diff").
#pragma once

#include "profiler/analysis/gate.h"
#include "profiler/view_common/view_options.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::diff {

enum class Format { text, json };

struct DiffOptions {
    view::ViewOptions view;             // applied to every profile
    std::vector<std::string> base, now; // the runs of each side: one or more files
    std::optional<double> fail_above;   // percentage points
    double confidence = analysis::kDefaultConfidence;
    analysis::Metric metric = analysis::Metric::share;
    std::string flame;           // -o FILE: the differential flame graph
    std::string junit, markdown; // --junit FILE, --markdown FILE
    size_t top = 20;             // rows shown; 0 = all
    Format format = Format::text;
};

extern const char kDiffUsage[];

// 1: parsed; 0: --help was printed (exit 0); -1: a usage error was
// printed as "cpcprof diff: ...".
int parse_diff_options(const std::vector<std::string> &args, DiffOptions *out);

} // namespace cpcprof::diff
