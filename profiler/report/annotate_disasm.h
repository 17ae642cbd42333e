// SPDX-License-Identifier: MIT
// `cpcprof annotate --disassemble`: a function's instructions with their
// costs (function_costs.h, the numbers of the viewer's disassembly pane).
#pragma once

#include "profiler/analysis/disassembly.h"
#include "profiler/analysis/query.h"

#include <string>
#include <vector>

namespace cpcprof::report {

// The table of fn's instructions: the share of the weigh event (self),
// samples, total samples, self and total of each of events, ">" beside
// instructions that samples reached, address, source file:line (the
// function's line; code inlined there also names where it came from) and
// the instruction.  When the code cannot be disassembled the reason goes
// to stderr and *ok is false.  options: where a separate debug file is
// sought (disassembly.h).
std::string annotate_disassembly(const analysis::Query &q, int weigh,
                                 const std::vector<size_t> &events, uint32_t fn,
                                 const analysis::DisassemblyOptions &options, bool *ok);

} // namespace cpcprof::report
