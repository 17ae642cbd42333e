// Signal context: everything here runs in the overflow handler.
#include "unwind.h"

#include "state.h"

#include "cfi.h"

#include <cstring>

namespace cpcprof::agent {

namespace {

bool is_root(uintptr_t ip) {
    const State &s = state();
    return (ip >= s.libc_lo && ip < s.libc_hi) || (ip >= s.entry_lo && ip < s.entry_hi);
}

} // namespace

namespace {

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

} // namespace

int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete) {
    *complete = false;
#if defined(__x86_64__)
    auto [pc, sp, fp] = interrupted(uc);
    if (hi == 0)
        lo = hi = sp; // bounds unknown: read nothing
    if (lo == 0 || sp > lo)
        lo = sp; // nothing below the interrupted stack pointer is a frame
    int n = 0;
    while (n < max) {
        frames[n++] = pc;
        uintptr_t bias = 0;
        // Return addresses point after the call: look up the call itself.
        const CfiRow *row = find_cfi(n == 1 ? pc : pc - 1, &bias);
        if (row == nullptr)
            break;
        uintptr_t cfa;
        switch (row->kind) {
        case CfiRow::outermost:
            *complete = true;
            return n;
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
    }
    return n;
#else
    return unwind_fp(uc, lo, hi, frames, max, complete);
#endif
}

int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete) {
    auto [pc, sp, fp] = interrupted(uc);
    int n = 0;
    frames[n++] = pc;
    *complete = false;
    if (hi == 0)
        return n; // stack bounds not known yet for this thread
    if (lo == 0 || sp > lo)
        lo = sp; // nothing below the interrupted stack pointer is a frame
    while (n < max) {
        // A frame is [saved fp][return address], 16 bytes inside the stack,
        // above the previous one.
        if (fp < lo || fp > hi - 16 || (fp & 7) != 0)
            break;
        uintptr_t next, ret;
        std::memcpy(&next, reinterpret_cast<void *>(fp), sizeof next);
        std::memcpy(&ret, reinterpret_cast<void *>(fp + 8), sizeof ret);
        if (ret == 0)
            break;
        frames[n++] = ret;
        if (next <= fp)
            break;
        fp = next;
    }
    *complete = n < max && n > 1 && is_root(frames[n - 1]);
    return n;
}

} // namespace cpcprof::agent
