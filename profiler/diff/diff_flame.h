// SPDX-License-Identifier: MIT
// The differential flame graph of `cpcprof diff -o FILE.html`: NEW's
// flame graph (frame width = NEW's total cost of that call path), each
// frame coloured by how its self share changed against the same call
// path in BASE (red: grew, blue: shrank, grey: unchanged or within noise:
// the two-proportion test of analysis/share_test.h at the comparison's
// confidence, as the viewer colours its comparison), with both shares and
// the change's interval in its tooltip.  Call paths are matched frame by frame on
// (function name, module basename), like the function table, by
// analysis::match_paths, as the viewer's comparison matches them.
//
// The page is self-contained (no network): static SVG inside HTML, <title>
// tooltips, and a short script for click-to-zoom.  Every name is escaped.
#pragma once

#include "profiler/analysis/query.h"
#include "profiler/analysis/share_test.h"

#include <string>

namespace cpcprof::diff {

struct FlameInput {
    const analysis::Query &base;
    const analysis::Query &now;
    int base_event = 0, new_event = 0; // the weighing event's index in each
    std::string event_name;
    std::string base_file, new_file;
    double confidence = analysis::kDefaultConfidence;
};

std::string diff_flame_html(const FlameInput &in);

} // namespace cpcprof::diff
