// SPDX-License-Identifier: MIT
// The differential flame graph of `cpcprof diff -o FILE.html`: NEW's
// flame graph (frame width = NEW's total cost of that call path), each
// frame coloured by how its share of the total changed against the same
// call path in BASE (red: grew, blue: shrank, grey: unchanged), with both
// shares in its tooltip.  Call paths are matched frame by frame on
// (function name, module basename), like the function table, by
// analysis::match_paths, as the viewer's comparison matches them.
//
// The page is self-contained (no network): static SVG inside HTML, <title>
// tooltips, and a short script for click-to-zoom.  Every name is escaped.
#pragma once

#include "profiler/analysis/query.h"

#include <string>

namespace cpcprof::diff {

struct FlameInput {
    const analysis::Query &base;
    const analysis::Query &now;
    int base_event = 0, new_event = 0; // the weighing event's index in each
    std::string event_name;
    std::string base_file, new_file;
};

std::string diff_flame_html(const FlameInput &in);

} // namespace cpcprof::diff
