// SPDX-License-Identifier: MIT
// Signal context: everything here runs in the overflow handler.
#include "profiler/agent/unwind.h"

#include "profiler/agent/state.h"

#include "profiler/agent/cfi.h"

#include <cstddef>
#include <cstring>
#include <signal.h>

namespace cpcprof::agent {

namespace {

bool is_root(const State &s, uintptr_t ip) {
    return (ip >= s.libc_lo && ip < s.libc_hi) || (ip >= s.entry_lo && ip < s.entry_hi);
}

// The profiler's own code: never a frame of the program's stack.
bool is_own(const State &s, uintptr_t ip) {
    for (int i = 0; i < 2; ++i)
        if (ip >= s.own_lo[i] && ip < s.own_hi[i])
            return true;
    return false;
}

// Steps a walk may take beyond its frames (the profiler's own frames,
// signal trampolines), so that it stays bounded whatever the stack holds.
constexpr int kExtraSteps = 16;

struct Regs {
    uintptr_t pc, sp, fp;
};

Regs interrupted(const ucontext_t *uc) {
#if defined(__x86_64__)
    return {static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]),
            static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]),
            static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP])};
#elif defined(__aarch64__)
    return {uc->uc_mcontext.pc, uc->uc_mcontext.sp, uc->uc_mcontext.regs[29]};
#endif
}

bool read_word(uintptr_t addr, uintptr_t lo, uintptr_t hi, uintptr_t *out) {
    if (addr < lo || addr > hi - sizeof(uintptr_t) || (addr & 7) != 0)
        return false;
    std::memcpy(out, reinterpret_cast<const void *>(addr), sizeof *out);
    return true;
}

#if defined(__x86_64__)
// The ucontext's general registers in DWARF order.
constexpr int kGregOf[kDwarfRegs] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
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

constexpr unsigned kRbpSlot = 1; // kSavedDwarf[1] == rbp

// glibc's x86-64 signal trampoline (__restore_rt): mov $15, %rax; syscall.
constexpr unsigned char kRestoreRt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};

// Whether pc starts the trampoline; only libc's code is read (it is
// mapped for as long as the process runs).
bool at_restore_rt(const State &s, uintptr_t pc) {
    if (pc < s.libc_lo || pc > s.libc_hi || s.libc_hi - pc < sizeof kRestoreRt)
        return false;
    return std::memcmp(reinterpret_cast<const void *>(pc), kRestoreRt, sizeof kRestoreRt) == 0;
}

// The context a signal interrupted, from the trampoline's frame: on
// x86-64 the handler returned into the trampoline with rsp at the
// ucontext of its rt_sigframe.  false when it lies outside [lo, hi).
bool signal_context(uintptr_t sp, uintptr_t lo, uintptr_t hi, Frame *f) {
    constexpr size_t gregs = offsetof(ucontext_t, uc_mcontext.gregs);
    constexpr size_t size = sizeof(greg_t) * NGREG;
    if (sp < lo || sp > hi || hi - sp < gregs + size || (sp & 7) != 0)
        return false;
    f->interrupted(reinterpret_cast<const greg_t *>(sp + gregs));
    return true;
}

// The program's alternate signal stack [lo, hi) when sp lies in it: a
// handler of the program's own installed with SA_ONSTACK runs there, and
// its frames lead through the signal frame back to the thread's stack.
// One system call; asked only when sp is outside the thread's stack.
bool alternate_stack(uintptr_t sp, uintptr_t *lo, uintptr_t *hi) {
    stack_t ss;
    if (sigaltstack(nullptr, &ss) != 0 || (ss.ss_flags & SS_DISABLE) != 0)
        return false;
    auto base = reinterpret_cast<uintptr_t>(ss.ss_sp);
    if (sp < base || sp >= base + ss.ss_size)
        return false;
    *lo = base;
    *hi = base + ss.ss_size;
    return true;
}

// The CFA of a row, from the frame's registers: false when the register
// it needs is not known or the word it loads lies outside [lo, hi).  lo
// may lie below the frame's sp: an interrupted function's red zone is its
// own (OpenSSL's assembly keeps the caller's rsp at -8(%rsp)).
bool row_cfa(const CfiRow &row, const Frame &f, uintptr_t lo, uintptr_t hi, uintptr_t *cfa) {
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
        if (!f.get(row.cfa_reg, &base) || !read_word(base + row.cfa_off, lo, hi, cfa))
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
void step_to_caller(const CfiRow &row, uintptr_t cfa, uintptr_t ra, uintptr_t lo, uintptr_t hi,
                    Frame *f) {
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
        } else if (read_word(slot, lo, hi, &f->saved[i])) {
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
uintptr_t red_zone(uintptr_t bottom, uintptr_t sp) {
    constexpr uintptr_t kRedZone = 128;
    if (bottom == 0 || bottom > sp)
        return sp;
    return sp - bottom > kRedZone ? sp - kRedZone : bottom;
}

// A frame without unwind rows (code generated at run time, code no FDE
// covers, a module whose rows are not compiled yet): the frame-pointer chain, as elfutils falls
// back to it.  Only rbp survives; the other callee-saved registers are
// lost.
bool fp_step(uintptr_t lo, uintptr_t hi, Frame *f) {
    uintptr_t fp, saved, ra;
    if (!f->get(kDwarfRbp, &fp) || fp < f->sp || !read_word(fp, lo, hi, &saved) ||
        !read_word(fp + 8, lo, hi, &ra))
        return false;
    f->gregs = nullptr;
    f->known = uint8_t(1u << kRbpSlot);
    f->saved[kRbpSlot] = saved;
    f->sp = fp + 16;
    f->pc = ra;
    return true;
}
#endif

} // namespace

int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete) {
    *complete = false;
#if defined(__x86_64__)
    const State &s = state();
    Frame f;
    f.interrupted(uc->uc_mcontext.gregs);
    if (hi == 0)
        lo = hi = f.sp; // bounds unknown: read nothing
    // Interrupted on the program's alternate signal stack: walk it first,
    // then the thread's stack from the signal frame that leads there.
    uintptr_t thread_lo = 0, thread_hi = 0;
    if ((f.sp < lo || f.sp >= hi) && hi != lo) {
        thread_lo = lo;
        thread_hi = hi;
        if (!alternate_stack(f.sp, &lo, &hi))
            lo = hi = f.sp;
    }
    uintptr_t bottom = lo; // the stack's lowest address, 0 when unknown
    if (lo == 0 || f.sp > lo)
        lo = f.sp; // nothing below the interrupted stack pointer is a frame
    int n = 0;
    for (int steps = 0; n < max && steps < max + kExtraSteps; ++steps) {
        uintptr_t pc = f.pc, sp = f.sp;
        // pc is where the thread was interrupted in a frame with all its
        // registers (the leaf, or the frame a signal interrupted); above
        // a call it is a return address.
        bool exact = f.gregs != nullptr;
        if (n == 0 || !is_own(s, pc))
            frames[n++] = pc;
        uintptr_t bias = 0;
        // Return addresses point after the call: look up the call itself.
        const CfiRow *row = find_cfi(exact ? pc : pc - 1, &bias);
        uint8_t kind = row != nullptr ? row->kind : uint8_t(CfiRow::none);
        if (kind != CfiRow::signal && kind != CfiRow::outermost && at_restore_rt(s, pc))
            kind = CfiRow::signal;
        if (kind == CfiRow::outermost) {
            *complete = true;
            return n;
        }
        if (kind == CfiRow::signal) {
            if (!signal_context(sp, lo, hi, &f))
                return n;
            if (thread_hi != 0 && f.sp >= thread_lo && f.sp < thread_hi) {
                // Off the alternate stack.  Only from the interrupted
                // stack pointer up: below it the thread's stack may not be
                // mapped (the kernel wrote the signal frame elsewhere), so
                // no red zone either.
                lo = f.sp;
                hi = thread_hi;
                bottom = 0;
                thread_hi = 0;
            } else if (f.sp <= sp) {
                return n; // would not move the walk up the stack
            }
            continue;
        }
        if (row == nullptr || kind == CfiRow::gap) {
            if (!fp_step(lo, hi, &f))
                return n;
        } else {
            // An interrupted frame (not a caller's) owns the red zone.
            uintptr_t cfa, ra;
            if (!row_cfa(*row, f, exact ? red_zone(bottom, sp) : lo, hi, &cfa) || cfa <= sp ||
                !read_word(cfa - 8, lo, hi, &ra))
                return n;
            step_to_caller(*row, cfa, ra, lo, hi, &f);
        }
        if (f.sp <= sp)
            return n;
        if (f.pc == 0) {
            *complete = true;
            return n;
        }
    }
    return n;
#else
    return unwind_fp(uc, lo, hi, frames, max, complete);
#endif
}

int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete) {
    const State &s = state();
    auto [pc, sp, fp] = interrupted(uc);
    int n = 0;
    frames[n++] = pc;
    *complete = false;
    if (hi == 0)
        return n; // stack bounds not known yet for this thread
    if (lo == 0 || sp > lo)
        lo = sp; // nothing below the interrupted stack pointer is a frame
    for (int steps = 0; n < max && steps < max + kExtraSteps; ++steps) {
        // A frame is [saved fp][return address], 16 bytes inside the stack,
        // above the previous one.
        if (fp < lo || fp > hi - 16 || (fp & 7) != 0)
            break;
        uintptr_t next, ret;
        std::memcpy(&next, reinterpret_cast<void *>(fp), sizeof next);
        std::memcpy(&ret, reinterpret_cast<void *>(fp + 8), sizeof ret);
        if (ret == 0)
            break;
        if (!is_own(s, ret))
            frames[n++] = ret;
        if (next <= fp)
            break;
        fp = next;
    }
    *complete = n < max && n > 1 && is_root(s, frames[n - 1]);
    return n;
}

} // namespace cpcprof::agent
