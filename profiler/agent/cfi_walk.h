// SPDX-License-Identifier: MIT
// Signal context: the DWARF call-frame walk over the compiled rows
// (cfi.h), shared by the overflow handler (unwind.cpp, reading the
// interrupted stack in place) and the recorder (a copy of a stack that
// the kernel's sample ring took, profiler/record/stack_unwind.cpp).
// Every function here is [async-signal-safe] (signal context): no allocation, no lock,
// bounded work; it reads the stack only inside the bounds it is given.
//
// A walk reads a stack address addr at addr + delta in this process:
// delta is 0 in place, and copy - sp for a copy that starts at sp.
#pragma once

#include "profiler/agent/cfi.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ucontext.h>

#if defined(__x86_64__)

namespace cpcprof::agent::walk {

// Steps a walk may take beyond its frames (the profiler's own frames,
// signal trampolines), so that it stays bounded whatever the stack holds.
inline constexpr int kExtraSteps = 16;

// The word at stack address addr, when it lies inside [lo, hi).
inline bool read_word(uintptr_t addr, uintptr_t lo, uintptr_t hi, uintptr_t delta, uintptr_t *out) {
    if (addr < lo || addr > hi - sizeof(uintptr_t) || (addr & 7) != 0)
        return false;
    std::memcpy(out, reinterpret_cast<const void *>(addr + delta), sizeof *out);
    return true;
}

// The ucontext's general registers in DWARF order.
inline constexpr int kGregOf[kDwarfRegs] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
                                            REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                            REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};

// The registers of one frame.  An interrupted frame (the leaf, or one a
// signal interrupted) has every register, in its ucontext; above a call,
// the walk knows pc and sp and the callee-saved registers the rows
// recover.  Small: the handler runs on whatever stack the thread has.
struct Frame {
    const greg_t *gregs; // the interrupted frame's registers, else null
    uintptr_t pc, sp;
    uintptr_t saved[kSavedRegs]; // kSavedDwarf, valid where bit i of known is set
    uint8_t known;

    void interrupted(const greg_t *g) {
        gregs = g;
        std::memcpy(&pc, &g[REG_RIP], sizeof pc);
        std::memcpy(&sp, &g[REG_RSP], sizeof sp);
        for (unsigned i = 0; i < kSavedRegs; ++i)
            std::memcpy(&saved[i], &g[kGregOf[kSavedDwarf[i]]], sizeof saved[i]);
        known = (1u << kSavedRegs) - 1;
    }
    // The value of DWARF register reg, when the walk knows it.
    bool get(unsigned reg, uintptr_t *v) const {
        if (reg == kDwarfRsp || reg == kDwarfRip) {
            *v = reg == kDwarfRsp ? sp : pc;
            return true;
        }
        if (reg >= kDwarfRegs)
            return false;
        if (int i = kSavedIndex[reg]; i >= 0) {
            *v = saved[i];
            return (known & (1u << i)) != 0;
        }
        if (gregs == nullptr)
            return false;
        std::memcpy(v, &gregs[kGregOf[reg]], sizeof *v);
        return true;
    }

    // kSavedDwarf's index of each DWARF register, -1 for the others.
    static constexpr int kSavedIndex[kDwarfRegs] = {-1, -1, -1, 0, -1, -1, 1, -1, -1,
                                                    -1, -1, -1, 2, 3,  4,  5, -1};
};

inline constexpr unsigned kRbpSlot = 1; // kSavedDwarf[1] == rbp

// glibc's x86-64 signal trampoline (__restore_rt): mov $15, %rax; syscall.
inline constexpr unsigned char kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00,
                                               0x00, 0x00, 0x0f, 0x05};

// The context a signal interrupted, from the trampoline's frame: on
// x86-64 the handler returned into the trampoline with rsp at the
// ucontext of its rt_sigframe.  false when it lies outside [lo, hi).
inline bool signal_context(uintptr_t sp, uintptr_t lo, uintptr_t hi, uintptr_t delta, Frame *f) {
    constexpr size_t gregs = offsetof(ucontext_t, uc_mcontext.gregs);
    constexpr size_t size = sizeof(greg_t) * NGREG;
    if (sp < lo || sp > hi || hi - sp < gregs + size || (sp & 7) != 0)
        return false;
    f->interrupted(reinterpret_cast<const greg_t *>(sp + gregs + delta));
    return true;
}

// The CFA of a row, from the frame's registers: false when the register
// it needs is not known or the word it loads lies outside [lo, hi).  lo
// may lie below the frame's sp: an interrupted function's red zone is its
// own (OpenSSL's assembly keeps the caller's rsp at -8(%rsp)).
inline bool row_cfa(const CfiRow &row, const Frame &f, uintptr_t lo, uintptr_t hi, uintptr_t delta,
                    uintptr_t *cfa) {
    uintptr_t base;
    switch (row.kind) {
    case CfiRow::plt:
        *cfa = f.sp + 8 + ((f.pc & 15) >= row.plt_threshold ? 8 : 0);
        return true;
    case CfiRow::reg:
        if (!f.get(row.cfa_reg, &base))
            return false;
        *cfa = base + row.cfa_off;
        return true;
    case CfiRow::deref:
        if (!f.get(row.cfa_reg, &base) || !read_word(base + row.cfa_off, lo, hi, delta, cfa))
            return false;
        *cfa += row.deref_add;
        return true;
    default:
        return false;
    }
}

// Makes f its caller's frame by the row's rules: sp = cfa, pc = ra, and
// the callee-saved registers.  A slot below the stack pointer has been
// popped already (an epilogue after `pop`, where the CFI still names the
// slot, now in the red zone): the register holds the caller's value.
// Only slots at or above sp are read.
inline void step_to_caller(const CfiRow &row, uintptr_t cfa, uintptr_t ra, uintptr_t lo,
                           uintptr_t hi, uintptr_t delta, Frame *f) {
    const uintptr_t rbp = f->saved[kRbpSlot], sp = f->sp;
    const bool has_rbp = (f->known & (1u << kRbpSlot)) != 0;
    uint8_t known = f->known & ~row.unknown;
    for (unsigned i = 0; i < kSavedRegs; ++i) {
        bool rbp_based = (row.rbp_based & (1u << i)) != 0;
        if ((known & (1u << i)) == 0 && !rbp_based && row.saved[i] == 0)
            continue; // unchanged and not known
        if ((row.unknown & (1u << i)) != 0 || (row.saved[i] == 0 && !rbp_based))
            continue; // lost, or unchanged
        known &= uint8_t(~(1u << i));
        if (rbp_based && !has_rbp)
            continue;
        uintptr_t slot = (rbp_based ? rbp : cfa) + row.saved[i];
        if (slot < sp) { // popped already: the register holds the caller's value
            if ((f->known & (1u << i)) != 0)
                known |= uint8_t(1u << i);
        } else if (read_word(slot, lo, hi, delta, &f->saved[i])) {
            known |= uint8_t(1u << i);
        }
    }
    f->gregs = nullptr;
    f->known = known;
    f->sp = cfa;
    f->pc = ra;
}

// The lowest address an interrupted function at sp may use: the x86-64
// psABI's 128-byte red zone below it, which the kernel leaves alone when
// it delivers a signal; never below the stack's bottom.
inline uintptr_t red_zone(uintptr_t bottom, uintptr_t sp) {
    constexpr uintptr_t kRedZone = 128;
    if (bottom == 0 || bottom > sp)
        return sp;
    return sp - bottom > kRedZone ? sp - kRedZone : bottom;
}

// A frame without unwind rows (code generated at run time, code no FDE
// covers, a module whose rows are not compiled yet): the frame-pointer
// chain, as elfutils falls back to it.  Only rbp survives; the other
// callee-saved registers are lost.
inline bool fp_step(uintptr_t lo, uintptr_t hi, uintptr_t delta, Frame *f) {
    uintptr_t fp, saved, ra;
    if (!f->get(kDwarfRbp, &fp) || fp < f->sp || !read_word(fp, lo, hi, delta, &saved) ||
        !read_word(fp + 8, lo, hi, delta, &ra))
        return false;
    f->gregs = nullptr;
    f->known = uint8_t(1u << kRbpSlot);
    f->saved[kRbpSlot] = saved;
    f->sp = fp + 16;
    f->pc = ra;
    return true;
}

// Where a walk reads: the stack [lo, hi) at delta; bottom, the stack's
// lowest address (the red zone's limit), 0 when unknown; thread_lo and
// thread_hi, the thread's stack when [lo, hi) is the program's alternate
// signal stack (0 otherwise), which the walk moves to through the signal
// frame that leads there.
struct Bounds {
    uintptr_t lo, hi, bottom, delta;
    uintptr_t thread_lo = 0, thread_hi = 0;
};

// The walk from frame f, leaf first, into frames (at most max); *complete
// when it reached a frame the rows mark outermost, a zero return address,
// or, above a frame without rows, a zero frame pointer.  Code (the Env):
// env.find(pc, &bias), the row that covers pc; env.restore_rt(pc), whether
// pc starts glibc's signal trampoline; env.own(pc), whether pc is the
// profiler's own code (left out of the frames but as the leaf).
template <class Env>
int dwarf(Frame f, Bounds b, const Env &env, uint64_t *frames, int max, bool *complete) {
    *complete = false;
    int n = 0;
    for (int steps = 0; n < max && steps < max + kExtraSteps; ++steps) {
        uintptr_t pc = f.pc, sp = f.sp;
        // pc is where the thread was interrupted in a frame with all its
        // registers (the leaf, or the frame a signal interrupted); above
        // a call it is a return address.
        bool exact = f.gregs != nullptr;
        if (n == 0 || !env.own(pc))
            frames[n++] = pc;
        uintptr_t bias = 0;
        // Return addresses point after the call: look up the call itself.
        const CfiRow *row = env.find(exact ? pc : pc - 1, &bias);
        uint8_t kind = row != nullptr ? row->kind : uint8_t(CfiRow::none);
        if (kind != CfiRow::signal && kind != CfiRow::outermost && env.restore_rt(pc))
            kind = CfiRow::signal;
        if (kind == CfiRow::outermost) {
            *complete = true;
            return n;
        }
        if (kind == CfiRow::signal) {
            if (!signal_context(sp, b.lo, b.hi, b.delta, &f))
                return n;
            if (b.thread_hi != 0 && f.sp >= b.thread_lo && f.sp < b.thread_hi) {
                // Off the alternate stack.  Only from the interrupted
                // stack pointer up: below it the thread's stack may not be
                // mapped (the kernel wrote the signal frame elsewhere), so
                // no red zone either.
                b.lo = f.sp;
                b.hi = b.thread_hi;
                b.bottom = 0;
                b.thread_hi = 0;
            } else if (f.sp <= sp) {
                return n; // would not move the walk up the stack
            }
            continue;
        }
        if (row == nullptr || kind == CfiRow::gap) {
            // A caller's frame without rows whose frame pointer is 0 ends
            // the chain, as the psABI marks the outermost frame (Go's
            // runtime.goexit under each goroutine's first function).
            uintptr_t fp;
            if (!exact && f.get(kDwarfRbp, &fp) && fp == 0) {
                *complete = true;
                return n;
            }
            if (!fp_step(b.lo, b.hi, b.delta, &f))
                return n;
        } else {
            // An interrupted frame (not a caller's) owns the red zone.
            uintptr_t cfa, ra;
            if (!row_cfa(*row, f, exact ? red_zone(b.bottom, sp) : b.lo, b.hi, b.delta, &cfa) ||
                cfa <= sp || !read_word(cfa - 8, b.lo, b.hi, b.delta, &ra))
                return n;
            step_to_caller(*row, cfa, ra, b.lo, b.hi, b.delta, &f);
        }
        if (f.sp <= sp)
            return n;
        if (f.pc == 0) {
            *complete = true;
            return n;
        }
    }
    return n;
}

} // namespace cpcprof::agent::walk

#endif
