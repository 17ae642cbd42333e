// SPDX-License-Identifier: MIT
// Signal dispositions as the kernel holds them, read and written with the
// rt_sigaction system call itself: sigaction(3) may be interposed by a
// preloaded library (cpcprof's agent interposes it), and libcpc and the
// agent must see what the kernel will do.  Every function here is
// async-signal-safe.
#pragma once

#include <signal.h>
#include <sys/syscall.h>
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

} // namespace cpcprof::base
