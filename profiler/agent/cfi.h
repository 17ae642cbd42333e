// Call-frame information for the overflow handler's DWARF unwinding.
//
// libunwind (1.6) looks up unwind tables with dl_iterate_phdr when its
// cache misses, and dl_iterate_phdr takes the loader's lock: a sample that
// lands while the thread holds that lock (in dlopen, dlclose, a C++ throw,
// or dl_iterate_phdr itself) deadlocks the thread.  So the agent compiles
// every loaded module's .eh_frame into a sorted table of rows, in ordinary
// context (at start and when the drain thread sees modules change), and the
// handler only searches those tables: no lock, no allocation, and reads of
// the interrupted stack only inside the thread's stack bounds.
//
// x86-64 only; elsewhere the dwarf mode falls back to frame pointers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cpcprof::agent {

// How to find the caller's frame at one range of code.
struct CfiRow {
    uint32_t pc;           // start, as an offset from the module's load bias
    uint8_t kind;          // see Kind
    uint8_t plt_threshold; // kind plt: CFA += 8 when (pc & 15) >= threshold
    int16_t rbp_off;       // caller's rbp saved at CFA + rbp_off; 0: rbp unchanged
    int32_t cfa_off;       // CFA = register + cfa_off
    // signal: a signal trampoline (the CIE's "S" augmentation): the
    // interrupted context is the ucontext at the CFA's stack pointer.
    enum Kind : uint8_t { none = 0, sp, fp, plt, outermost, signal };
};

struct ModuleCfi {
    uintptr_t lo, hi; // executable range
    uintptr_t bias;   // load bias (dlpi_addr)
    const CfiRow *rows;
    uint32_t count;
};

// An immutable, sorted set of modules, published whole.
struct CfiIndex {
    std::vector<ModuleCfi> modules; // sorted by lo
};

// Rebuilds the index from the loaded modules (ordinary context; tables of
// modules already seen are reused).  Call at start and when modules change.
void refresh_cfi();

// refresh_cfi() when modules were loaded or unloaded since the last one.
// Thread-safe against the drain thread's calls.
void refresh_cfi_if_changed();

// [async-signal-safe] The row that covers pc, or null.
const CfiRow *find_cfi(uintptr_t pc, uintptr_t *bias);

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
// (tests/fuzz/fuzz_eh_frame.cpp).  Not async-signal-safe.
std::vector<CfiRow> compile_eh_frame(const uint8_t *hdr, uintptr_t bias,
                                     std::span<const CfiMemory> readable);

} // namespace cpcprof::agent
