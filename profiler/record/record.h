// SPDX-License-Identifier: MIT
// `cpcprof record`.
#pragma once

#include <string>
#include <vector>

namespace cpcprof::record {

// Returns the process exit status: the target's, or 2 for usage errors
// (an output that is not a regular file included), 127 when the command
// cannot run, and 1 when recording could not start or the file stopped
// taking writes.
int record_main(const std::vector<std::string> &args);

} // namespace cpcprof::record
