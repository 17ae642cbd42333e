// SPDX-License-Identifier: MIT
// Finding a source file that a profile names by the path it was compiled
// from, on a machine where the tree may live elsewhere (--source-dir).
#pragma once

#include <string>
#include <vector>

namespace cpcprof::analysis {

// Where to look for path, in order: for each dir, dir + path, then dir +
// path with its leading components removed one at a time (the last is dir
// + basename); then path itself.  No duplicates.
std::vector<std::string> source_candidates(const std::string &path,
                                           const std::vector<std::string> &dirs);

// Files are opened through source_access.h's open_source(), which tries
// these candidates and reads only those under the source roots.

} // namespace cpcprof::analysis
