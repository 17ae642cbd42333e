// SPDX-License-Identifier: MIT
// The options of `cpcprof report` (docs/profiler.md, "cpcprof report").
#pragma once

#include "profiler/analysis/hotspots.h"
#include "profiler/view_common/view_options.h"

#include <cstddef>
#include <string>
#include <vector>

namespace cpcprof::report {

using analysis::GroupBy;
enum class Format { text, json, csv };

struct ReportOptions {
    view::ViewOptions view;
    std::string file = view::kDefaultProfile;
    GroupBy by = GroupBy::function;
    std::string sort = "self"; // self, total, samples, name or an event's name
    size_t top = 20;           // rows shown; 0 = all
    std::string callers;       // --callers FUNC
    std::string callees;       // --callees FUNC
    Format format = Format::text;
    std::string output = "-"; // -o FILE; "-" = stdout
};

extern const char kReportUsage[];

// 1: parsed; 0: --help was printed (exit 0); -1: a usage error was
// printed as "cpcprof report: ...".
int parse_report_options(const std::vector<std::string> &args, ReportOptions *out);

} // namespace cpcprof::report
