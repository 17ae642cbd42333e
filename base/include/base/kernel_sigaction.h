// SPDX-License-Identifier: MIT
// Signal dispositions as the kernel holds them, read and written with the
// rt_sigaction system call itself: sigaction(3) may be interposed by a
// preloaded library (cpcprof's agent interposes it), and libcpc and the
// agent must see what the kernel will do.  Every function here is
// async-signal-safe.
#pragma once

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace cpcprof::base {

// The kernel's struct sigaction (rt_sigaction(2)).
struct KernelSigaction {
    void *handler = nullptr;
    unsigned long flags = 0;
    void *restorer = nullptr;
    uint64_t mask = 0;
};

// [async-signal-safe]
inline bool read_kernel_action(int sig, KernelSigaction *ka) {
    return syscall(SYS_rt_sigaction, sig, nullptr, ka, sizeof ka->mask) == 0;
}

// [async-signal-safe]
inline bool write_kernel_action(int sig, const KernelSigaction &ka) {
    return syscall(SYS_rt_sigaction, sig, &ka, nullptr, sizeof ka.mask) == 0;
}

// [async-signal-safe] The program's view of a kernel action.
inline struct sigaction to_sigaction(const KernelSigaction &ka) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = reinterpret_cast<sighandler_t>(ka.handler);
    sa.sa_flags = static_cast<int>(ka.flags & ~0x04000000UL); // SA_RESTORER: the kernel's
    sigemptyset(&sa.sa_mask);
    std::memcpy(&sa.sa_mask, &ka.mask, sizeof ka.mask);
    return sa;
}

// [async-signal-safe] Sets the calling thread's mask to the one the
// kernel gives a handler of sig with sa_mask and sa_flags: the
// interrupted code's (from the handler's ucontext), sa_mask, and sig
// itself unless SA_NODEFER; SIGTRAP too, for libcpc's overflows (an
// overflow while the handler runs merges into a signal after it).  For a
// program's handler run by hand from a handler of the profiler's, whose
// own mask blocks more.  sigreturn restores the interrupted mask.
inline void mask_as_the_kernel_would(int sig, uint64_t sa_mask, unsigned long sa_flags,
                                     const void *ucontext) {
    uint64_t mask = sa_mask | uint64_t(1) << (SIGTRAP - 1);
    if ((sa_flags & SA_NODEFER) == 0)
        mask |= uint64_t(1) << (sig - 1);
    uint64_t interrupted = 0;
    std::memcpy(&interrupted, &static_cast<const ucontext_t *>(ucontext)->uc_sigmask,
                sizeof interrupted);
    mask |= interrupted;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, nullptr, sizeof mask);
}

} // namespace cpcprof::base
