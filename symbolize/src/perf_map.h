// SPDX-License-Identifier: MIT
// A perf map: the symbols a JIT writes for the code it generates, in
// perf's convention (/tmp/perf-PID.map; `node --perf-basic-prof`, Java's
// perf-map-agent, LuaJIT, ...).  One line per function:
//     START SIZE NAME
// START and SIZE in hex (a "0x" prefix allowed), NAME the rest of the
// line, spaces included ("LazyCompile:*fib /x.js:3").  Addresses are the
// process's own.  A JIT that reuses an address writes a new line for the
// new code: where lines overlap, the later one wins (the code there at
// the end of the run).  Lines that do not parse are skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::symbolize {

class PerfMap {
  public:
    static PerfMap parse(std::string_view text);
    // nullopt when the file cannot be read.
    static std::optional<PerfMap> load(const std::string &path);

    // Whether path names a perf map: a file "perf-DIGITS.map".
    static bool is_perf_map_path(std::string_view path);

    // The name of the function at address, or null.
    const std::string *find(uint64_t address) const;
    size_t size() const { return entries_.size(); } // non-overlapping ranges

  private:
    struct Entry {
        uint64_t start, end;
        uint32_t name;
    };
    std::vector<Entry> entries_; // sorted by start, disjoint
    std::vector<std::string> names_;
};

} // namespace cpcprof::symbolize
