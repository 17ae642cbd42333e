// SPDX-License-Identifier: MIT
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

// DWARF register numbers on x86-64 (System V psABI, figure 3.36).
inline constexpr unsigned kDwarfRbx = 3, kDwarfRbp = 6, kDwarfRsp = 7, kDwarfRip = 16;
inline constexpr unsigned kDwarfRegs = 17; // rax .. r15, rip

// The callee-saved registers a row says where to find (the others do not
// survive a call, so no caller needs them): rbx, rbp, r12 .. r15.
inline constexpr unsigned kSavedRegs = 6;
inline constexpr uint8_t kSavedDwarf[kSavedRegs] = {3, 6, 12, 13, 14, 15};

// How to find the caller's frame at one range of code.
struct CfiRow {
    uint32_t pc;           // start, as an offset from the module's load bias
    uint8_t kind;          // see Kind
    uint8_t cfa_reg;       // kinds reg and deref: the DWARF register of the CFA rule
    uint8_t plt_threshold; // kind plt: CFA += 8 when (pc & 15) >= threshold
    uint8_t pad = 0;
    int32_t cfa_off; // reg: CFA = cfa_reg + cfa_off; deref: *(cfa_reg + cfa_off) + deref_add
    int32_t deref_add;
    // The caller's value of kSavedDwarf[i]: saved at CFA + saved[i] (or
    // at this frame's rbp + saved[i] when bit i of rbp_based is set: GCC's
    // stack realignment, DRAP); saved[i] == 0 and the bit clear: the
    // register is unchanged.  Bit i of unknown: the caller's value is lost.
    int16_t saved[kSavedRegs];
    uint8_t rbp_based;
    uint8_t unknown;
    // none: no rule the walk can compute.  gap: no FDE covers the code
    // (past a function's end: code without unwind information, such as
    // V8's builtins).  signal: a signal trampoline (the CIE's "S"
    // augmentation): the interrupted context is the ucontext at the CFA's
    // stack pointer.
    enum Kind : uint8_t { none = 0, reg, deref, plt, outermost, signal, gap };
};

struct ModuleCfi {
    uintptr_t lo, hi; // executable range
    uintptr_t bias;   // load bias (dlpi_addr)
    const CfiRow *rows;
    const uint32_t *pcs; // rows[i].pc, apart: the search reads 4 bytes a row, not 32
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

// [async-signal-safe] The same in a given index (the recorder keeps one
// per process whose copied stacks it unwinds).
const CfiRow *find_cfi_in(const CfiIndex &index, uintptr_t pc, uintptr_t *bias);

} // namespace cpcprof::agent
