// Finding a source file that a profile names by the path it was compiled
// from, on a machine where the tree may live elsewhere (--source-dir).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::report {

// Where to look for path, in order: for each dir, dir + path, then dir +
// path with its leading components removed one at a time (the last is dir
// + basename); then path itself.  No duplicates.
std::vector<std::string> source_candidates(const std::string &path,
                                           const std::vector<std::string> &dirs);

// The first candidate that is a regular file; every candidate tried is
// appended to *tried.
std::optional<std::string> find_source(const std::string &path,
                                       const std::vector<std::string> &dirs,
                                       std::vector<std::string> *tried);

// The file's lines without their line ends; false if it cannot be read.
bool read_lines(const std::string &path, std::vector<std::string> *lines);

} // namespace cpcprof::report
