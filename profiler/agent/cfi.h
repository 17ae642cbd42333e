// Call-frame information for the overflow handler's DWARF unwinding: the
// tables and their lookup.
//
// libunwind (1.6) looks up unwind tables with dl_iterate_phdr when its
// cache misses, and dl_iterate_phdr takes the loader's lock: a sample that
// lands while the thread holds that lock (in dlopen, dlclose, a C++ throw,
// or dl_iterate_phdr itself) deadlocks the thread.  So the agent does not
// use libunwind: it compiles every loaded module's .eh_frame into a sorted
// table of rows in ordinary context (eh_frame.h, cfi_tables.h: at start
// and when the drain thread sees the modules change), and the handler only
// searches those tables (find_cfi, cfi_lookup.cpp): no lock, no
// allocation, and reads of the interrupted stack only inside the thread's
// stack bounds.
//
// x86-64 only; elsewhere the dwarf mode falls back to frame pointers.
#pragma once

#include <cstdint>
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

// Makes index the one find_cfi searches (ordinary context, release
// order).  The index and its rows must outlive every handler that may
// still read them: they are never freed.
void publish_cfi(const CfiIndex *index);

// [async-signal-safe] The row that covers pc in the published index, or
// null; *bias is then the module's load bias.
const CfiRow *find_cfi(uintptr_t pc, uintptr_t *bias);

} // namespace cpcprof::agent
