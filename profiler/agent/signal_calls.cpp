// SPDX-License-Identifier: MIT
// The C library's other ways to set a signal's disposition, which reach
// the kernel without going through sigaction(3): signal(3) and its
// relatives, and syscall(SYS_rt_sigaction, ...).  On a signal the agent
// keeps (signals.h) each is done as sigaction(2) would do it, through the
// sigaction wrapper; on any other, as the C library does it.
#include "profiler/agent/signals.h"

#include "profiler/agent/overflow_signal.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <libcpc.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include <cstdint>
#include <cstring>

using namespace cpcprof::agent;

namespace {

template <class F> F next(const char *name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

} // namespace

// rt_sigaction through syscall(3): the kernel's structures in and out.
// libcpc and the agent call syscall(3) to reach the kernel itself: their
// calls pass unchanged.
namespace {

struct CodeRange {
    uintptr_t lo = 0, hi = 0;
};
CodeRange g_ours[2]; // this library's code and libcpc's

int find_range(dl_phdr_info *info, size_t, void *arg) {
    auto *r = static_cast<CodeRange *>(arg);
    if (info->dlpi_addr != r->lo)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
            r->lo = info->dlpi_addr + ph.p_vaddr;
            r->hi = r->lo + ph.p_memsz;
            return 1;
        }
    }
    r->lo = 0;
    return 1;
}

void code_range_of(const void *fn, CodeRange *r) {
    Dl_info info;
    if (dladdr(fn, &info) == 0)
        return;
    r->lo = reinterpret_cast<uintptr_t>(info.dli_fbase);
    if (dl_iterate_phdr(find_range, r) == 0)
        r->lo = 0;
}

__attribute__((constructor(101))) void find_our_code() {
    code_range_of(reinterpret_cast<const void *>(&report_signal_findings), &g_ours[0]);
    code_range_of(reinterpret_cast<const void *>(&cpc_open), &g_ours[1]);
}

bool called_by_us(uintptr_t ret) {
    for (const CodeRange &r : g_ours)
        if (ret >= r.lo && ret < r.hi)
            return true;
    return false;
}

long kernel_sigaction_call(long sig, const KernelSigaction *act, KernelSigaction *old) {
    struct sigaction sa, before;
    if (act != nullptr)
        sa = to_sigaction(*act);
    if (sigaction(static_cast<int>(sig), act ? &sa : nullptr, old ? &before : nullptr) != 0)
        return -1;
    if (old != nullptr) {
        *old = KernelSigaction{};
        old->handler = reinterpret_cast<void *>(before.sa_handler);
        old->flags = static_cast<unsigned long>(before.sa_flags);
        std::memcpy(&old->mask, &before.sa_mask, sizeof old->mask);
    }
    return 0;
}

} // namespace

namespace cpcprof::agent {

bool program_sigaction_syscall(long number, const long *a, const void *caller, long *rc) {
    if (number != SYS_rt_sigaction || !kept_signal(static_cast<int>(a[0])) ||
        static_cast<size_t>(a[3]) != sizeof(uint64_t) ||
        called_by_us(reinterpret_cast<uintptr_t>(caller)))
        return false;
    *rc = kernel_sigaction_call(a[0], reinterpret_cast<const KernelSigaction *>(a[1]),
                                reinterpret_cast<KernelSigaction *>(a[2]));
    return true;
}

} // namespace cpcprof::agent

namespace {

sighandler_t set_handler(int sig, sighandler_t h, int flags) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = h;
    sa.sa_flags = flags;
    struct sigaction old;
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

} // namespace

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int sig,
                                                                      sighandler_t h) noexcept {
    return set_handler(sig, h, SA_RESTART);
}

extern "C" __attribute__((visibility("default"))) sighandler_t bsd_signal(int sig,
                                                                          sighandler_t h) noexcept {
    return set_handler(sig, h, SA_RESTART);
}

extern "C" __attribute__((visibility("default"))) sighandler_t
sysv_signal(int sig, sighandler_t h) noexcept {
    if (!kept_signal(sig)) {
        using fn = sighandler_t (*)(int, sighandler_t);
        static std::atomic<fn> slot{nullptr};
        fn real =
            cpcprof::base::computed_once(slot, fn{nullptr}, [] { return next<fn>("sysv_signal"); });
        return real(sig, h);
    }
    return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}

// sigset(3): SIG_HOLD blocks the signal; anything else sets the handler
// and unblocks it.  Returns the previous disposition, or SIG_HOLD if the
// signal was blocked.
extern "C" __attribute__((visibility("default"))) sighandler_t sigset(int sig,
                                                                      sighandler_t h) noexcept {
    if (!kept_signal(sig)) {
        using fn = sighandler_t (*)(int, sighandler_t);
        static std::atomic<fn> slot{nullptr};
        fn real =
            cpcprof::base::computed_once(slot, fn{nullptr}, [] { return next<fn>("sigset"); });
        return real(sig, h);
    }
    sigset_t one, before;
    sigemptyset(&one);
    sigaddset(&one, sig);
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) != 0)
        return SIG_ERR;
    if (h != SIG_HOLD && set_handler(sig, h, 0) == SIG_ERR)
        return SIG_ERR;
    if (pthread_sigmask(h == SIG_HOLD ? SIG_BLOCK : SIG_UNBLOCK, &one, &before) != 0)
        return SIG_ERR;
    return sigismember(&before, sig) ? SIG_HOLD : old.sa_handler;
}
