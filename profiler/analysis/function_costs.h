// SPDX-License-Identifier: MIT
// One function's costs per source line and per instruction, for `cpcprof
// annotate` (--disassemble) and the viewer's source page: one computation,
// so that both show the same numbers.
#pragma once

#include "profiler/analysis/disassembly.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <vector>

namespace cpcprof::analysis {

// The Query::line_costs() rows of function fn (self: samples whose
// innermost frame is fn at that line; total: samples with a frame of fn at
// that line, once per sample), by file then line.  Code inlined into fn
// counts in the total of the line of the inlined call; its self cost is
// the inlined function's (its own rows).
std::vector<analysis::Query::LineCost> function_line_costs(const analysis::Query &q, uint32_t fn);

// Per instruction of d (same index): self = samples whose interrupted PC
// is the instruction; total = samples with the instruction anywhere on
// their stack (the PC, or a call whose return address follows it), once
// per sample.  Addresses are matched by module file and file offset, so
// every function whose code lies in the disassembled symbol (code inlined
// into it too) counts.
struct InstructionCost {
    analysis::Cost self, total;
};
std::vector<InstructionCost> instruction_costs(const analysis::Query &q, int64_t module_id,
                                               const Disassembly &d);

// The module file and file offset of the hottest code of fn (the address
// of fn's frames with the most samples; self before total); false when
// no frame of fn has a module (no code to disassemble).
bool hottest_code(const analysis::Query &q, uint32_t fn, int64_t *module_id,
                  std::string *module_path, uint64_t *offset);

} // namespace cpcprof::analysis
