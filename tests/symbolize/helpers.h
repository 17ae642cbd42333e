// SPDX-License-Identifier: MIT
// Runs a test program of data/ and reads what it printed: probe return
// addresses, function addresses and executable mappings.
#pragma once

#include "symbolize/symbolizer.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace symtest {

struct Run {
    std::map<std::string, uint64_t> probes;    // tag -> return address
    std::map<std::string, uint64_t> functions; // name -> address
    std::vector<cpcprof::symbolize::Mapping> mappings;
    // The mapping of path that holds address, for expected offsets.
    uint64_t file_offset(uint64_t address) const;
};

Run run_program(const std::string &path);

// The line of source_file whose text contains "@marker" (0 if none).
int line_of(const std::string &source_file, const std::string &marker);

std::string basename(const std::string &path);

// A fresh directory under TMPDIR, removed with its contents on destruction.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    const std::string &path() const { return path_; }

  private:
    std::string path_;
};

} // namespace symtest
