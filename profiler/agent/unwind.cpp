// Signal context: everything here runs in the overflow handler.
#include "unwind.h"

#include "state.h"

#include "cfi.h"

#include <cstddef>
#include <cstring>

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
// ucontext of its rt_sigframe.  false when it lies outside [lo, hi) or
// would not move the walk up the stack.
bool signal_context(uintptr_t sp, uintptr_t lo, uintptr_t hi, Regs *r) {
    constexpr size_t gregs = offsetof(ucontext_t, uc_mcontext.gregs);
    uintptr_t pc, nsp, fp;
    if (!read_word(sp + gregs + REG_RIP * 8, lo, hi, &pc) ||
        !read_word(sp + gregs + REG_RSP * 8, lo, hi, &nsp) ||
        !read_word(sp + gregs + REG_RBP * 8, lo, hi, &fp) || nsp <= sp)
        return false;
    *r = {pc, nsp, fp};
    return true;
}
#endif

} // namespace

int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete) {
    *complete = false;
#if defined(__x86_64__)
    const State &s = state();
    auto [pc, sp, fp] = interrupted(uc);
    if (hi == 0)
        lo = hi = sp; // bounds unknown: read nothing
    if (lo == 0 || sp > lo)
        lo = sp; // nothing below the interrupted stack pointer is a frame
    int n = 0;
    // pc is where the thread was interrupted (the leaf, or the frame a
    // signal interrupted), not a return address after a call.
    bool exact = true;
    for (int steps = 0; n < max && steps < max + kExtraSteps; ++steps) {
        if (n == 0 || !is_own(s, pc))
            frames[n++] = pc;
        uintptr_t bias = 0;
        // Return addresses point after the call: look up the call itself.
        const CfiRow *row = find_cfi(exact ? pc : pc - 1, &bias);
        uint8_t kind = row != nullptr ? row->kind : uint8_t(CfiRow::none);
        if (kind != CfiRow::signal && kind != CfiRow::outermost && at_restore_rt(s, pc))
            kind = CfiRow::signal;
        uintptr_t cfa;
        switch (kind) {
        case CfiRow::outermost:
            *complete = true;
            return n;
        case CfiRow::signal: {
            Regs r;
            if (!signal_context(sp, lo, hi, &r))
                return n;
            pc = r.pc, sp = r.sp, fp = r.fp;
            exact = true;
            continue;
        }
        case CfiRow::sp:
            cfa = sp + row->cfa_off;
            break;
        case CfiRow::fp:
            cfa = fp + row->cfa_off;
            break;
        case CfiRow::plt:
            cfa = sp + 8 + ((pc & 15) >= row->plt_threshold ? 8 : 0);
            break;
        default:
            return n;
        }
        uintptr_t ra;
        if (cfa <= sp || !read_word(cfa - 8, lo, hi, &ra))
            break;
        // A saved rbp below sp has been popped already (an epilogue after
        // `pop %rbp`, where the CFI still names its slot in the red zone):
        // the register holds the caller's value.  Only a slot at or above
        // sp is read.
        if (row->rbp_off != 0 && cfa + row->rbp_off >= sp &&
            !read_word(cfa + row->rbp_off, lo, hi, &fp))
            break;
        if (ra == 0) {
            *complete = true;
            return n;
        }
        sp = cfa;
        pc = ra;
        exact = false;
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
