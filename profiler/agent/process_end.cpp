// SPDX-License-Identifier: MIT
// The process's end: sampling stops, what the rings hold goes to the
// recorder, then the threads that could not be sampled and the exit
// status.  exit() and a return from main (the on_exit hook), the
// library's destructor, and _exit/_Exit, which skip both (interposed).
#include "profiler/agent/channel.h"
#include "profiler/agent/drain.h"
#include "profiler/agent/handler.h"
#include "profiler/agent/process.h"
#include "profiler/agent/state.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace cpcprof::agent {

namespace {

// Stops sampling and sends what the rings hold.  Runs once, from whichever
// of the ends below comes first.
void finish_samples() {
    static std::atomic<bool> done{false};
    if (!sampling() || done.exchange(true))
        return;
    State &s = state();
    deliver_pending_overflows();
    s.armed.store(false, std::memory_order_release);
    if (s.cpc != nullptr)
        cpc_unbind(s.cpc, s.set);
    if (!finish_drain())
        send_error("the profiler's drain thread did not finish its pass within " +
                   std::to_string(kStopWaitSeconds) +
                   " s at the process's end: the samples still in its rings are lost");
}

__attribute__((destructor)) void agent_fini() {
    finish_samples();
}

} // namespace

// exit() and a return from main: exit handlers run before the loader runs
// the destructors, but this one was registered before main (from the
// constructor), so it runs after them.  It has the exit status.
void on_process_exit(int status, void *) {
    finish_samples();
    if (sampling() && getpid() == agent_pid())
        report_unsampled_threads();
    if (reporting()) {
        send_bye(status);
        set_mode(Mode::off);
    }
}

// A thread that blocks SIGTRAP with a raw rt_sigprocmask (which the mask
// wrappers cannot see) has its overflows pending: the kernel keeps writing
// their records into the sample ring.  At the thread's end the signal is
// let in, so that libcpc counts them (cpc_set_merged_overflows) and they
// are in the accounting, not lost without a trace.
void deliver_pending_overflows() {
    sigset_t pending;
    if (sigpending(&pending) != 0 || !sigismember(&pending, SIGTRAP))
        return;
    // SIGEMT too: libcpc queues it when the thread blocks it.
    uint64_t ours = (uint64_t(1) << (SIGTRAP - 1)) | (uint64_t(1) << (SIGEMT - 1));
    tls_releasing_blocked = true;
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &ours, nullptr, sizeof ours);
    tls_releasing_blocked = false;
}

} // namespace cpcprof::agent

using namespace cpcprof::agent;

// _exit and _Exit skip the exit handlers: send the samples and the code
// here.  Not in a vfork child, which shares the parent's memory (its pid
// is not the one the agent knows).
namespace {
[[noreturn]] void end_now(const char *name, int code) {
    using exit_fn = void (*)(int);
    exit_fn real = reinterpret_cast<exit_fn>(dlsym(RTLD_NEXT, name));
    if (reporting() && getpid() == agent_pid()) {
        finish_samples();
        if (sampling())
            report_unsampled_threads();
        send_bye(code);
        set_mode(Mode::off);
    }
    real(code);
    __builtin_unreachable();
}
} // namespace

extern "C" __attribute__((visibility("default"), noreturn)) void _exit(int code) {
    end_now("_exit", code);
}

extern "C" __attribute__((visibility("default"), noreturn)) void _Exit(int code) noexcept {
    end_now("_Exit", code);
}
