// SPDX-License-Identifier: MIT
// `cpcprof diff BASE NEW`: how each function's share of the events changed
// between two profiles, as a table (text or JSON), a differential flame
// graph (-o FILE.html) and a CI gate (--fail-above PCT).  Options, output
// and exit statuses: docs/profiler.md ("cpcprof diff"); using it in CI:
// docs/ci.md.
#pragma once

#include <string>
#include <vector>

namespace cpcprof::diff {

// Exit status of --fail-above: a function's self share grew by more than PCT points.
inline constexpr int kExitRegression = 3;

// args: everything after "diff".  Exit status: view::kExitOk,
// view::kExitFailed (a file refused, no event in common, an output not
// written), view::kExitUsage (bad option, unknown event), kExitRegression.
int diff_main(const std::vector<std::string> &args);

} // namespace cpcprof::diff
