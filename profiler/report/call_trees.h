// SPDX-License-Identifier: MIT
// --callers FUNC / --callees FUNC: storage's CallTree of each function
// FUNC names, printed as an indented tree (text), nested objects (JSON) or
// one row per node with its depth (CSV).  Children are ordered by the
// weighing event's total, largest first.  The walks keep their own stack
// (no recursion per frame) and the indentation stops growing after 40
// levels (text shows "[DEPTH] " before deeper names), so output and time
// grow with the number of nodes.
#pragma once

#include "profiler/report/report_output.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::report {

enum class TreeKind { callers, callees };

std::string render_trees(const ReportContext &c, TreeKind kind, const std::string &query,
                         const std::vector<uint32_t> &functions);

} // namespace cpcprof::report
