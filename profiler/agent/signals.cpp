// The sampling signal belongs to the agent.  A program that installs its
// own handler for it, or blocks it, would stop the sampling (and with the
// default action an overflow would kill it), so the agent interposes the
// calls that change a signal's handler or mask:
//   - sigaction/signal on SIGEMT record the program's handler, which the
//     agent's handler calls for every SIGEMT that is not an overflow;
//   - sigprocmask/pthread_sigmask never block SIGEMT.
// Each case is reported once to the recorder (by the drain thread), which
// prints it.  The wrappers themselves are async-signal-safe.
#include "signals.h"

#include "channel.h"
#include "state.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstring>

namespace cpcprof::agent {

namespace {

using sigaction_fn = int (*)(int, const struct sigaction *, struct sigaction *);
using mask_fn = int (*)(int, const sigset_t *, sigset_t *);

struct sigaction g_program; // what the program installed for SIGEMT
std::atomic<bool> g_program_set{false};
// Set by the wrappers (possibly in a signal handler); the drain thread
// reports them.  0 nothing, 1 to report, 2 reported.
std::atomic<int> g_saw_handler{0}, g_saw_mask{0};
// The agent's own code changes masks too (its drain thread starts with
// every signal blocked).  Those pass unchanged.
__attribute__((tls_model("initial-exec"))) thread_local int tls_agent_depth = 0;

sigaction_fn real_sigaction() {
    static sigaction_fn fn = reinterpret_cast<sigaction_fn>(dlsym(RTLD_NEXT, "sigaction"));
    return fn;
}

template <class F> F next(const char *name) { return reinterpret_cast<F>(dlsym(RTLD_NEXT, name)); }

bool guarding(int sig) { return signals_guarded() && sig == SIGEMT; }

void note(std::atomic<int> &flag) {
    int expected = 0;
    flag.compare_exchange_strong(expected, 1);
}

void report(std::atomic<int> &flag, const char *what) {
    int expected = 1;
    if (flag.compare_exchange_strong(expected, 2))
        send_error(what);
}

int filtered_mask(mask_fn real, int how, const sigset_t *set, sigset_t *old) {
    if (set == nullptr || how == SIG_UNBLOCK || !signals_guarded() || tls_agent_depth > 0 ||
        !sigismember(set, SIGEMT))
        return real(how, set, old);
    sigset_t copy = *set;
    sigdelset(&copy, SIGEMT);
    note(g_saw_mask);
    return real(how, &copy, old);
}

} // namespace

bool install_sampling_handler(void (*handler)(int, siginfo_t *, void *)) {
    struct sigaction sa {};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    std::memset(&g_program, 0, sizeof g_program);
    g_program.sa_handler = SIG_DFL;
    return real_sigaction()(SIGEMT, &sa, nullptr) == 0;
}

void forward_to_program(int sig, siginfo_t *si, void *uc) {
    if (!g_program_set.load(std::memory_order_acquire))
        return;
    const struct sigaction &p = g_program;
    if (p.sa_flags & SA_SIGINFO) {
        if (p.sa_sigaction != nullptr)
            p.sa_sigaction(sig, si, uc);
    } else if (p.sa_handler != SIG_IGN && p.sa_handler != SIG_DFL) {
        p.sa_handler(sig);
    }
}

AgentCode::AgentCode() { ++tls_agent_depth; }
AgentCode::~AgentCode() { --tls_agent_depth; }

void report_signal_findings() {
    report(g_saw_mask, "the program blocks the sampling signal (SIGEMT); cpcprof keeps it "
                       "unblocked so that sampling goes on");
    report(g_saw_handler, "the program installs its own handler for the sampling signal "
                          "(SIGEMT); cpcprof keeps sampling and passes it the signals that "
                          "are not overflows");
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

extern "C" __attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old) noexcept {
    if (!guarding(sig))
        return real_sigaction()(sig, act, old);
    if (old != nullptr)
        *old = g_program;
    if (act != nullptr) {
        g_program_set.store(false, std::memory_order_release);
        g_program = *act;
        g_program_set.store(true, std::memory_order_release);
        note(g_saw_handler);
    }
    return 0;
}

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int sig,
                                                                      sighandler_t h) noexcept {
    struct sigaction sa {}, old {};
    sa.sa_handler = h;
    sa.sa_flags = SA_RESTART;
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

extern "C" __attribute__((visibility("default"))) int
sigprocmask(int how, const sigset_t *set, sigset_t *old) noexcept {
    static mask_fn real = next<mask_fn>("sigprocmask");
    return filtered_mask(real, how, set, old);
}

extern "C" __attribute__((visibility("default"))) int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old) noexcept {
    static mask_fn real = next<mask_fn>("pthread_sigmask");
    return filtered_mask(real, how, set, old);
}
