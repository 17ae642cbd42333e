// SPDX-License-Identifier: MIT
// The signals the profiler relies on belong to the agent.  A program that
// installs its own handler for one, or blocks it, would stop the sampling
// or receive the profiler's signals (and with the default action an
// overflow would kill it), so the agent interposes the calls that change
// a signal's handler or mask:
//   - sigaction/signal on SIGEMT record the program's action, which the
//     agent's handler runs for every SIGEMT that is not an overflow;
//   - sigaction/signal on SIGTRAP, once libcpc's handler is installed,
//     record the program's action, which libcpc's handler runs for every
//     SIGTRAP that is not an overflow (overflow_signal.cpp);
//   - sigprocmask/pthread_sigmask never block SIGEMT;
//   - signal(3) and its relatives, and syscall(SYS_rt_sigaction, ...) of
//     the C library, are treated as sigaction (signal_calls.cpp).  A
//     system call made without libc (Go's runtime) cannot be interposed:
//     overflow_signal.cpp finds its effect afterwards.
// Each case is reported once to the recorder (by the drain thread), which
// prints it.  The wrappers themselves are async-signal-safe.
#include "profiler/agent/signals.h"

#include "profiler/agent/channel.h"
#include "profiler/agent/handler_entry.h"
#include "profiler/agent/overflow_signal.h"
#include "profiler/agent/state.h"

#include "base/computed_once.h"

#include <dlfcn.h>
#include <libcpc.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstring>
#include <string>

namespace cpcprof::agent {

namespace {

using mask_fn = int (*)(int, const sigset_t *, sigset_t *);

// Set by the wrappers (possibly in a signal handler); the drain thread
// reports them.  0 nothing, 1 to report, 2 reported.
std::atomic<int> g_saw_handler{0}, g_saw_mask{0}, g_saw_trap{0};

sigaction_fn real_sigaction() {
    static std::atomic<sigaction_fn> fn{nullptr};
    return cpcprof::base::computed_once(fn, sigaction_fn{nullptr}, [] {
        return reinterpret_cast<sigaction_fn>(dlsym(RTLD_NEXT, "sigaction"));
    });
}

template <class F> F next(const char *name) {
    return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

void note(std::atomic<int> &flag) {
    int expected = 0;
    flag.compare_exchange_strong(expected, 1);
}

void report(std::atomic<int> &flag, const std::string &what) {
    int expected = 1;
    if (flag.compare_exchange_strong(expected, 2))
        send_error(what);
}

// SIGTRAP too, once libcpc's handler is in place: blocked, the kernel's
// overflow traps would wait (counted at the thread's end, not sampled).
int filtered_mask(mask_fn real, int how, const sigset_t *set, sigset_t *old) {
    bool trap = overflow_handler_captured();
    // The agent's own code changes masks too (its drain thread starts with
    // every signal blocked).  Those pass unchanged.
    if (set == nullptr || how == SIG_UNBLOCK || !signals_guarded() || in_agent_code() ||
        !(sigismember(set, SIGEMT) || (trap && sigismember(set, SIGTRAP))))
        return real(how, set, old);
    sigset_t copy = *set;
    sigdelset(&copy, SIGEMT);
    if (trap)
        sigdelset(&copy, SIGTRAP);
    note(g_saw_mask);
    return real(how, &copy, old);
}

// The program's sigaction on a signal the agent keeps: its action is
// recorded and reported as its own, the kernel's stays the agent's.
int keep(ProgramAction &program, std::atomic<int> &seen, const struct sigaction *act,
         struct sigaction *old) {
    if (old != nullptr)
        *old = program.get();
    if (act != nullptr) {
        program.set(*act);
        note(seen);
    }
    return 0;
}

} // namespace

bool install_sampling_handler(void (*handler)(int, siginfo_t *, void *)) {
    set_sampling_handler(handler);
    struct sigaction sa {};
    sa.sa_sigaction = sampling_entry;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    // The program's own signals wait until a sample is taken: a handler of
    // the program's entered on top of the agent's would run with SIGEMT
    // blocked (the kernel adds the mask of the handler it interrupts), and
    // every overflow while it ran would merge into one signal after it,
    // their stacks lost.  Left open: SIGTRAP, which libcpc's overflows
    // raise synchronously (a kernel before 6.3 kills a process that blocks
    // it), and the faults and seccomp's SIGSYS, which the kernel forces.
    sigfillset(&sa.sa_mask);
    for (int sync : {SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGSYS, SIGABRT})
        sigdelset(&sa.sa_mask, sync);
    struct sigaction before;
    if (real_sigaction()(SIGEMT, &sa, &before) != 0)
        return false;
    program_sampling_action().set(before); // SIG_IGN, inherited across exec, stays the program's
    note_sampling_action();
    return true;
}

bool kept_signal(int sig) {
    return sig == SIGTRAP ? overflow_handler_captured() : sig == SIGEMT && signals_guarded();
}

void report_signal_findings() {
    const std::string sigemt =
        "the sampling signal (SIGEMT, signal " + std::to_string(SIGEMT) + ")";
    report(g_saw_mask, "the program blocks " + sigemt +
                           " or SIGTRAP, which the kernel raises at counter overflow; cpcprof "
                           "keeps them unblocked so that sampling goes on (a thread that "
                           "blocks them with a direct system call has its overflows counted "
                           "as dropped)");
    report(g_saw_handler, "the program sets its own action for " + sigemt +
                              "; cpcprof keeps its handler installed, keeps sampling and gives "
                              "the program's action the signals that are not overflows");
    report(g_saw_trap, "the program sets its own action for SIGTRAP, which the kernel raises "
                       "at counter overflow; cpcprof keeps its handler installed, keeps "
                       "sampling and gives the program's action the SIGTRAPs that are not "
                       "overflows");
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

extern "C" __attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old) noexcept {
    if (sig == SIGTRAP) {
        if (overflow_handler_captured()) {
            int rc = keep(program_trap_action(), g_saw_trap, act, old);
            if (rc == 0 && act != nullptr)
                follow_program_trap_stack(*act);
            return rc;
        }
        if (in_agent_code() && act != nullptr)
            return capture_overflow_handler(real_sigaction(), act, old); // libcpc's
    } else if (sig == SIGEMT && signals_guarded()) {
        return keep(program_sampling_action(), g_saw_handler, act, old);
    }
    return real_sigaction()(sig, act, old);
}

extern "C" __attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set,
                                                                  sigset_t *old) noexcept {
    static std::atomic<mask_fn> slot{nullptr};
    mask_fn real = cpcprof::base::computed_once(slot, mask_fn{nullptr},
                                                [] { return next<mask_fn>("sigprocmask"); });
    return filtered_mask(real, how, set, old);
}

extern "C" __attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t *set,
                                                                      sigset_t *old) noexcept {
    static std::atomic<mask_fn> slot{nullptr};
    mask_fn real = cpcprof::base::computed_once(slot, mask_fn{nullptr},
                                                [] { return next<mask_fn>("pthread_sigmask"); });
    return filtered_mask(real, how, set, old);
}
