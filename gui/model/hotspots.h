// The rows of the viewer's flat hotspot table, without Qt: one per
// function with samples, with its module, the file:line of its hottest
// line, and its self and total cost of every event -- the rows of
// `cpcprof report` (--by function), from the same Query figures.
#pragma once

#include "profiler/analysis/query.h"

#include <string>
#include <vector>

namespace cpcprof::gui {

struct HotspotRow {
    uint32_t function = 0; // Query::functions() index
    std::string file;      // the file of its line with the most self samples
    uint32_t line = 0;     // 0 = unknown
    analysis::Cost self, total;
};

// In the order of Query::functions().
std::vector<HotspotRow> hotspot_rows(const analysis::Query &q);

// "file:line", "file" when the line is unknown, "" when both are.
std::string location(const HotspotRow &row);

} // namespace cpcprof::gui
