// `cpcprof record`.
#pragma once

#include <string>
#include <vector>

namespace cpcprof::record {

// Returns the process exit status: the target's, or 2 for usage errors
// and 1 when recording could not start.
int record_main(const std::vector<std::string> &args);

} // namespace cpcprof::record
