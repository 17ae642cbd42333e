// SPDX-License-Identifier: MIT
// libFuzzer target: the agent's .eh_frame compiler
// (profiler/agent/eh_frame.cpp and cfa_program.cpp, compiled into this
// target), which runs inside the profiled program on every library it
// loads: a malformed library must not crash it.
//
// Input: 8 bytes, little-endian, the address the library would have put
// .eh_frame_hdr at (its p_vaddr), then the bytes from .eh_frame_hdr to the
// end of .eh_frame as they lie in memory (the seeds are cut from real
// libraries by make_eh_frame_seed.sh).  Those bytes are the only memory
// the compiler is told it may read; AddressSanitizer reports any read
// outside them (libFuzzer's copy of the input ends exactly there).
#include "profiler/agent/eh_frame.h"

#include <cstdint>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 8 + 4)
        return 0;
    uint64_t vaddr;
    std::memcpy(&vaddr, data, 8);
    const uint8_t *hdr = data + 8;
    const cpcprof::agent::CfiMemory readable[] = {{hdr, data + size}};
    uintptr_t bias = reinterpret_cast<uintptr_t>(hdr) - static_cast<uintptr_t>(vaddr);
    auto rows = cpcprof::agent::compile_eh_frame(hdr, bias, readable);
    // The table is sorted by pc, as find_cfi's binary search needs.
    for (size_t i = 1; i < rows.size(); ++i)
        if (rows[i - 1].pc > rows[i].pc)
            __builtin_trap();
    return 0;
}
