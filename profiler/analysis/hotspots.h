// SPDX-License-Identifier: MIT
// The rows of the hotspot table: one per function, source line, module
// or thread, with self and total costs taken from storage's Query.
#pragma once

#include "profiler/analysis/query.h"

#include <string>
#include <vector>

namespace cpcprof::analysis {

// What a hotspot row stands for (`cpcprof report --by`).
enum class GroupBy { function, line, module, thread };

struct HotspotRow {
    // function and line rows
    std::string function;
    uint32_t function_index = 0; // Query::functions() index
    std::string file;            // function rows: the file of its hottest line
    uint32_t line = 0;           // 0 = unknown
    // function, line and module rows ("" = no mapping held the address)
    std::string module;
    // thread rows
    int pid = 0, tid = 0;
    std::string thread;
    // Self: samples whose innermost frame is in the row (for a module, in
    // one of its functions).  Total: samples with the row anywhere on the
    // stack, once per sample.  A thread's self and total are its samples.
    analysis::Cost self, total;
};

// Function rows come in the order of Query::functions(); sort_rows orders
// rows for display.
std::vector<HotspotRow> hotspot_rows(const analysis::Query &q, GroupBy by);

struct SortKey {
    enum Kind { self, total, samples, name } kind = self;
    int event = 0; // for self and total: the event whose value orders
};

// Descending by cost (name: ascending by function, file:line, module or
// thread id); ties broken by samples, then name, so output is stable.
// top != 0: keeps only the first `top` rows.
void sort_rows(std::vector<HotspotRow> &rows, GroupBy by, SortKey key, size_t top = 0);

// "file:line", "file" when the line is unknown, "" when both are.
std::string location(const HotspotRow &row);

} // namespace cpcprof::analysis

namespace cpcprof::analysis {

// More functions than this matching a name is an error that lists them.
inline constexpr size_t kMaxMatches = 5;

// The functions name designates (Query::find_functions: exact names, or
// else those containing it).  false, with a message "cpcprof cmd: ..." on
// stderr, when none does or more than kMaxMatches do (they are listed).
bool match_functions(const char *cmd, const analysis::Query &q, const std::string &name,
                     std::vector<uint32_t> *out);

} // namespace cpcprof::analysis
