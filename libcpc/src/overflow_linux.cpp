// SPDX-License-Identifier: MIT
// Signal context: everything reachable from on_sigtrap() allocates nothing,
// takes no lock, and preserves errno.
#include "base/kernel_sigaction.h"
#include "libcpc/src/overflow.h"

#include "libcpc.h"
#include "libcpc/src/counting.h"
#include "libcpc/src/thread_state.h"

#include "base/clock.h"

#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace cpc {

namespace {

int g_sigemt = 0;
bool g_stable = false; // CPC_SIGEMT_STABLE=1
struct sigaction g_previous_trap;

void *interrupted_pc(void *ucv) {
    auto *uc = static_cast<ucontext_t *>(ucv);
#if defined(__x86_64__)
    return reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return reinterpret_cast<void *>(uc->uc_mcontext.pc);
#else
#error "interrupted_pc: unsupported architecture"
#endif
}

// A SIGTRAP that is not one of ours goes where it would have gone.
void forward(int sig, siginfo_t *si, void *uc) {
    if (si->si_code == SI_TIMER &&
        issued_trap_cookie(reinterpret_cast<uint64_t>(si->si_value.sival_ptr)))
        return; // the timer of a set since unbound or restarted: libcpc's
    const struct sigaction &p = g_previous_trap;
    if ((p.sa_flags & SA_SIGINFO) || (p.sa_handler != SIG_IGN && p.sa_handler != SIG_DFL)) {
        uint64_t sa_mask = 0;
        std::memcpy(&sa_mask, &p.sa_mask, sizeof sa_mask);
        cpcprof::base::mask_as_the_kernel_would(sig, sa_mask, p.sa_flags, uc);
    }
    if (p.sa_flags & SA_SIGINFO) {
        if (p.sa_sigaction != nullptr)
            p.sa_sigaction(sig, si, uc);
        return;
    }
    if (p.sa_handler == SIG_IGN)
        return;
    if (p.sa_handler != SIG_DFL) {
        p.sa_handler(sig);
        return;
    }
    if (si->si_code == TRAP_PERF)
        return; // a stale overflow of a closed set: nothing to do
    // Default action: restore it and let the trap happen again.  System
    // calls, not signal(3) and pthread_sigmask(3), which a preloaded
    // library (a profiler's agent) may interpose to keep SIGTRAP for us.
    struct {
        void *handler;
        unsigned long flags;
        void *restorer;
        uint64_t mask;
    } dfl = {};
    syscall(SYS_rt_sigaction, SIGTRAP, &dfl, nullptr, sizeof dfl.mask);
    uint64_t trap = uint64_t(1) << (SIGTRAP - 1);
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &trap, nullptr, sizeof trap);
    syscall(SYS_tgkill, cached_pid(), cpcprof::base::current_tid(), SIGTRAP);
}

// The kernel's struct sigaction (rt_sigaction(2)), read without going
// through sigaction(3), which a preloaded library may interpose.
using cpcprof::base::KernelSigaction;

// The SIGEMT disposition read at the calling thread's last bind, for a
// program that promised not to change it (CPC_SIGEMT_STABLE).  The
// handler uses it only while `valid`: a bind, which an overflow of the set
// it replaces may interrupt, clears that before writing and sets it after.
struct CachedDisposition {
    KernelSigaction ka;
    bool valid;
};
// initial-exec: read in the overflow handler (see thread_state.cpp).
__attribute__((tls_model("initial-exec"))) thread_local CachedDisposition tls_sigemt = {};

int read_disposition(int sig, KernelSigaction *ka) {
    return cpcprof::base::read_kernel_action(sig, ka) ? 0 : -1;
}

// Runs the program's SIGEMT handler right here, as the kernel would have:
// with the overflow's siginfo and the interrupted context, and with the
// interrupted code's mask, its sa_mask and SIGEMT blocked (this handler's
// own mask blocks more; sigreturn restores the interrupted mask).  A second signal
// delivery costs about 3.6 us on a VM.  Where the kernel must act - the
// default action, an ignored or blocked SIGEMT, SA_RESETHAND - the signal
// is queued instead.
bool deliver_sigemt(pid_t tid, void *ucv) {
    auto *uc = static_cast<ucontext_t *>(ucv);
    void *pc = interrupted_pc(ucv);
    int sig = sigemt_signal();
    KernelSigaction ka;
    bool known = tls_sigemt.valid; // one system call less per overflow
    if (known)
        ka = tls_sigemt.ka;
    if ((!known && read_disposition(sig, &ka) != 0) ||
        ka.handler == reinterpret_cast<void *>(SIG_DFL) ||
        ka.handler == reinterpret_cast<void *>(SIG_IGN) || (ka.flags & SA_RESETHAND) ||
        sigismember(&uc->uc_sigmask, sig)) {
        raise_sigemt(tid, pc);
        return false;
    }
    cpcprof::base::mask_as_the_kernel_would(sig, ka.mask, ka.flags, ucv);
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    info.si_signo = sig;
    info.si_code = EMT_CPCOVF;
    info.si_addr = pc;
    if (ka.flags & SA_SIGINFO)
        reinterpret_cast<void (*)(int, siginfo_t *, void *)>(ka.handler)(sig, &info, ucv);
    else
        reinterpret_cast<void (*)(int)>(ka.handler)(sig);
    return true;
}

void on_sigtrap(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    Counting *c = current_counting();
    Counting::Trap t = c != nullptr ? c->on_trap(si) : Counting::Trap::not_ours;
    if (t == Counting::Trap::not_ours) {
        forward(sig, si, uc);
    } else if (t == Counting::Trap::overflow) {
        // One SIGEMT per overflow the signal brought (counting.h).  The
        // program's handler may unbind or rebind: the loop goes on only
        // while the same counting is the thread's.
        uint32_t id = c->id();
        do {
            if (!deliver_sigemt(c->tid(), uc)) {
                c->overflows_merged_into_queued();
                break;
            }
        } while (current_counting() == c && c->id() == id && c->next_overflow());
    }
    errno = saved;
}

int parse_signal(const char *text) {
    if (text == nullptr || *text == '\0')
        return 0;
    const char *p = text;
    if (std::strncmp(p, "SIG", 3) == 0)
        p += 3;
    char *end = nullptr;
    long n;
    if (std::strncmp(p, "RTMIN", 5) == 0) {
        n = p[5] == '\0' ? 0 : std::strtol(p + 5, &end, 10);
        if (p[5] != '\0' && *end != '\0')
            return -1;
        n += SIGRTMIN;
    } else {
        n = std::strtol(p, &end, 10);
        if (end == p || *end != '\0')
            return -1;
    }
    if (n < 1 || n > SIGRTMAX || n == SIGKILL || n == SIGSTOP || n == SIGTRAP)
        return -1;
    return static_cast<int>(n);
}

int choose_sigemt() {
    const char *env = std::getenv("CPC_SIGEMT");
    int s = parse_signal(env);
    if (s < 0) {
        std::fprintf(stderr,
                     "libcpc: CPC_SIGEMT=%s is not a usable signal (a number or RTMIN+n, "
                     "not SIGKILL, SIGSTOP or SIGTRAP); using SIGRTMIN+5\n",
                     env);
        s = 0;
    }
    return s != 0 ? s : SIGRTMIN + 5;
}

// Chosen before main() so that SIGEMT is a plain load later, also from a
// signal handler.
__attribute__((constructor)) void init_sigemt() {
    g_sigemt = choose_sigemt();
    const char *stable = std::getenv("CPC_SIGEMT_STABLE");
    g_stable = stable != nullptr && std::strcmp(stable, "1") == 0;
}

} // namespace

int sigemt_signal() {
    if (g_sigemt == 0)
        g_sigemt = choose_sigemt();
    return g_sigemt;
}

void install_overflow_handler() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigtrap;
        // No SA_ONSTACK: an overflow lands on whatever the thread runs on,
        // and a program's alternate signal stack is sized for its own
        // handlers (Rust gives each thread 8 KiB, MINSIGSTKSZ is 2 KiB),
        // often smaller than the kernel's signal frame alone (AT_MINSIGSTKSZ,
        // 3.4 KiB with AVX-512 state): delivering every overflow there would
        // overflow it.  While the program runs on that stack, the kernel
        // stacks the frame there anyway and checks that it fits.
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        // Every signal the kernel does not force waits while an overflow
        // is handled.  A program's handler entered on top of this one
        // (its signal pending when the overflow's is delivered: both
        // raised by one timer interrupt) would run with SIGTRAP and
        // SIGEMT blocked, and the overflows meanwhile would merge into one
        // signal after it.  deliver_sigemt gives the program's SIGEMT
        // handler the mask the kernel would have.
        sigfillset(&sa.sa_mask);
        for (int sync : {SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGABRT})
            sigdelset(&sa.sa_mask, sync);
        sigaction(SIGTRAP, &sa, &g_previous_trap);
    });
}

void cache_sigemt_disposition() {
    tls_sigemt.valid = false;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (!g_stable || read_disposition(sigemt_signal(), &tls_sigemt.ka) != 0)
        return;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    tls_sigemt.valid = true;
}

void raise_sigemt(pid_t tid, void *pc) {
    siginfo_t info;
    std::memset(&info, 0, sizeof info);
    info.si_signo = sigemt_signal();
    info.si_code = EMT_CPCOVF;
    info.si_addr = pc;
    syscall(SYS_rt_tgsigqueueinfo, cached_pid(), tid, info.si_signo, &info);
}

} // namespace cpc

extern "C" __attribute__((visibility("default"))) int __cpc_sigemt(void) {
    return cpc::sigemt_signal();
}
