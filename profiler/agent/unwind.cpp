// SPDX-License-Identifier: MIT
// Signal context: everything here runs in the overflow handler.
#include "profiler/agent/unwind.h"

#include "profiler/agent/state.h"

#include "profiler/agent/cfi.h"
#include "profiler/agent/cfi_walk.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
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

// Steps a walk may take beyond its frames (the profiler's own frames),
// so that it stays bounded whatever the stack holds.
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

#if defined(__x86_64__)
// The process's own code, as the walk asks for it: the published rows,
// libc's trampoline read in place, the agent's own ranges.
struct InPlace {
    const State &s;
    const CfiRow *find(uintptr_t pc, uintptr_t *bias) const { return find_cfi(pc, bias); }
    // Whether pc starts the trampoline; only libc's code is read (it is
    // mapped for as long as the process runs).
    bool restore_rt(uintptr_t pc) const {
        if (pc < s.libc_lo || pc > s.libc_hi || s.libc_hi - pc < sizeof walk::kRestoreRt)
            return false;
        return std::memcmp(reinterpret_cast<const void *>(pc), walk::kRestoreRt,
                           sizeof walk::kRestoreRt) == 0;
    }
    bool own(uintptr_t pc) const { return is_own(s, pc); }
};

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

// A copy of the stack from sp up, as much as is mapped of scratch.size
// bytes: process_vm_readv on this process stops at the first page it
// cannot read, where reading in place would fault.  One iovec per page,
// since the call does not split an iovec.  The bytes copied; 0 if none.
// Not inlined: its iovecs are on the handler's stack only while it copies.
__attribute__((noinline)) size_t copy_stack(uintptr_t sp, Scratch scratch) {
    if (scratch.data == nullptr)
        return 0;
    constexpr size_t kPage = 4096, kMaxPieces = 8;
    iovec local{scratch.data, scratch.size};
    iovec remote[kMaxPieces];
    size_t pieces = 0, at = 0;
    while (at < scratch.size && pieces < kMaxPieces) {
        size_t len = std::min(scratch.size - at, kPage - ((sp + at) % kPage));
        remote[pieces++] = {reinterpret_cast<void *>(sp + at), len};
        at += len;
    }
    local.iov_len = at;
    ssize_t n = process_vm_readv(getpid(), &local, 1, remote, pieces, 0);
    return n > 0 ? size_t(n) : 0;
}
#endif

} // namespace

int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete, Scratch scratch) {
    *complete = false;
#if defined(__x86_64__)
    walk::Frame f;
    f.interrupted(uc->uc_mcontext.gregs);
    if (hi == 0)
        lo = hi = f.sp; // bounds unknown: read nothing
    // Interrupted on the program's alternate signal stack: walk it first,
    // then the thread's stack from the signal frame that leads there.
    uintptr_t thread_lo = 0, thread_hi = 0, delta = 0;
    bool own = false; // a stack of the program's own: read in its copy
    if ((f.sp < lo || f.sp >= hi) && hi != lo) {
        thread_lo = lo;
        thread_hi = hi;
        if (!alternate_stack(f.sp, &lo, &hi)) {
            own = true;
            lo = f.sp;
            hi = f.sp + copy_stack(f.sp, scratch);
            delta = reinterpret_cast<uintptr_t>(scratch.data) - f.sp;
            thread_lo = thread_hi = 0;
        }
    }
    uintptr_t bottom = own ? 0 : lo; // the stack's lowest address, 0 when unknown
    if (lo == 0 || f.sp > lo)
        lo = f.sp; // nothing below the interrupted stack pointer is a frame
    return walk::dwarf(f, {lo, hi, bottom, delta, thread_lo, thread_hi}, InPlace{state()}, frames,
                       max, complete);
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
