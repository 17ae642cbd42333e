// Signal context: everything here runs in the overflow handler.
#include "unwind.h"

#include "signals.h"
#include "state.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstring>

namespace cpcprof::agent {

namespace {

bool is_root(uintptr_t ip) {
    const State &s = state();
    return (ip >= s.libc_lo && ip < s.libc_hi) || (ip >= s.entry_lo && ip < s.entry_hi);
}

} // namespace

void warm_unwinder() {
    AgentCode mine;
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    void *buf[kMaxDepthLimit];
    unw_backtrace(buf, kMaxDepthLimit);
}

int unwind_dwarf(uintptr_t pc, uint64_t *frames, int max, bool *complete) {
    // The walk starts in this handler: skip its frames and the signal
    // trampoline, up to the interrupted PC.
    constexpr int kSkipMax = 16;
    void *buf[kMaxDepthLimit + kSkipMax];
    int cap = max + kSkipMax;
    int n = unw_backtrace(buf, cap);
    int first = -1;
    for (int i = 0; i < n && i < kSkipMax; ++i) {
        if (reinterpret_cast<uintptr_t>(buf[i]) == pc) {
            first = i;
            break;
        }
    }
    if (first < 0) {
        frames[0] = pc;
        *complete = false;
        return 1;
    }
    int depth = n - first;
    if (depth > max)
        depth = max;
    for (int i = 0; i < depth; ++i)
        frames[i] = reinterpret_cast<uintptr_t>(buf[first + i]);
    *complete = n < cap && depth > 1 && is_root(frames[depth - 1]);
    return depth;
}

int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete) {
#if defined(__x86_64__)
    uintptr_t pc = uc->uc_mcontext.gregs[REG_RIP];
    uintptr_t fp = uc->uc_mcontext.gregs[REG_RBP];
    uintptr_t sp = uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    uintptr_t pc = uc->uc_mcontext.pc;
    uintptr_t fp = uc->uc_mcontext.regs[29];
    uintptr_t sp = uc->uc_mcontext.sp;
#endif
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
