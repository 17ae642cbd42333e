// SPDX-License-Identifier: MIT
// `cpcprof report` and `cpcprof annotate`: where a profile's events went,
// as a hotspot table, caller/callee trees, or a function's source with
// per-line costs.  Both read the file through storage's Query; the
// options, output columns and exit statuses are in docs/profiler.md
// ("cpcprof report", "cpcprof annotate").
#pragma once

#include <string>
#include <vector>

namespace cpcprof::report {

// args: everything after "report".  Exit status: view::kExitOk,
// kExitFailed (file refused, output not written, unknown or ambiguous
// function), kExitUsage (bad option, unknown event).
int report_main(const std::vector<std::string> &args);

// args: everything after "annotate"; the same exit statuses.
int annotate_main(const std::vector<std::string> &args);

} // namespace cpcprof::report
