// SPDX-License-Identifier: MIT
// What the viewer's source page shows for one function, without Qt: its
// source file's lines with per-line self and total costs (the numbers of
// `cpcprof annotate`, report/function_costs.h), the hottest lines ranked,
// and its disassembly with per-instruction costs (the numbers of
// `cpcprof annotate --disassemble`).  Files are read only through
// report/source_access.h (the check annotate uses); when one is not
// shown, why_not says why.
#pragma once

#include "profiler/analysis/disassembly.h"
#include "profiler/analysis/function_costs.h"
#include "profiler/analysis/query.h"
#include "profiler/analysis/source_access.h"

#include <string>
#include <vector>

namespace cpcprof::gui {

// Lines marked hot: the first kHotLines by the chosen event's self cost
// (total when no line has self cost).
inline constexpr size_t kHotLines = 5;

struct SourceLine {
    uint32_t line = 0;             // 1-based
    std::string text;              // "" when the file is not shown
    bool has_cost = false;         // samples reached it (self, total below)
    analysis::Cost self, total;    // zero when !has_cost
    int hot_rank = 0;              // 1 = hottest, .. kHotLines; 0 = not hot
    std::vector<uint32_t> inlined; // functions inlined at this line (Query::functions())
};

struct SourceView {
    uint32_t function = 0;
    std::string stored_path;  // the file the profile names for it
    std::string shown_path;   // the file read ("" = none)
    std::string fetched_from; // the debuginfod server it came from ("" = this machine)
    std::string why_not;      // why no file is shown (source_access.h's reasons)
    // Every line of the file when shown; else the lines with costs only.
    std::vector<SourceLine> lines;
    // Other files where the function has costs (inlined headers), not shown.
    std::vector<std::string> other_files;
    // The line of line number n in lines; -1 if none.
    int rowOfLine(uint32_t n) const;
};

// fn's source view, event ranking the hot lines.  Any thread (reads the
// immutable Query).  client (may be null): asked for a source file that
// is not on this machine (analysis::open_source), for as long as its bound.
SourceView source_view(const analysis::Query &q, uint32_t fn, const analysis::SourceRoots &roots,
                       int event, symbolize::DebuginfodClient *client = nullptr);

struct DisassemblyView {
    uint32_t function = 0;
    analysis::Disassembly code;                   // code.error says why none
    std::vector<analysis::InstructionCost> costs; // per instruction
};

// fn's disassembly: the symbol holding its hottest code, objdump run as a
// child process.  Any thread; takes as long as objdump (call it off the
// GUI thread).
DisassemblyView disassembly_view(const analysis::Query &q, uint32_t fn,
                                 const analysis::DisassemblyOptions &options = {});

} // namespace cpcprof::gui
