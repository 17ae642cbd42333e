// SPDX-License-Identifier: MIT
// The .eh_frame compiler: a module's call-frame information into the rows
// that the overflow handler searches (cfi.h).  Ordinary context only.
#pragma once

#include "profiler/agent/cfi.h"

#include <cstdint>
#include <span>
#include <vector>

namespace cpcprof::agent {

// Memory the unwind tables of a module may point into: [lo, hi).
struct CfiMemory {
    const uint8_t *lo, *hi;
};

// Work allowed per readable byte (instruction bytes run): real tables run
// each FDE's bytes once and the CIE's few per FDE; a malformed one that
// lists a huge record many times gets no rows instead of a stall.
inline constexpr uint64_t kCfiWorkPerByte = 64;

// Compiles one module's .eh_frame, found through its .eh_frame_hdr
// (PT_GNU_EH_FRAME) at hdr; bias is the module's load bias.  Every byte
// it reads lies inside `readable` (the module's loaded segments, as the
// program headers say): a malformed or hostile library gets fewer or no
// rows, never a fault.  Exposed for tests and the fuzzer
// (tests/fuzz/fuzz_eh_frame.cpp).
std::vector<CfiRow> compile_eh_frame(const uint8_t *hdr, uintptr_t bias,
                                     std::span<const CfiMemory> readable);

} // namespace cpcprof::agent
