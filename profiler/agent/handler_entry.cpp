// SPDX-License-Identifier: MIT
// Signal context: everything here may run in the overflow handler's path
// (sampling_entry, AgentCode, forward_to_program, run_program_action), or
// in libcpc's SIGTRAP handler for a trap that is not an overflow
// (run_program_action).  No lock, no allocation, errno left to the caller.
#include "profiler/agent/handler_entry.h"

#include "profiler/agent/disposition.h"
#include "profiler/agent/overflow_signal.h"
#include "profiler/agent/signals.h"

#include "base/clock.h"

#include <libcpc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace cpcprof::agent {

namespace {

constinit ProgramAction g_program; // what the program installed for SIGEMT
// The agent's own code changes masks too (its drain thread starts with
// every signal blocked).  Those pass unchanged.
__attribute__((tls_model("initial-exec"))) thread_local int tls_agent_depth = 0;
void (*g_sampling_handler)(int, siginfo_t *, void *) = nullptr;
std::atomic<bool> g_stopped{false};

} // namespace

void sampling_entry(int sig, siginfo_t *si, void *uc) {
    if (si->si_code == EMT_CPCOVF && sampling_stopped())
        return;
    g_sampling_handler(sig, si, uc);
}

void set_sampling_handler(void (*handler)(int, siginfo_t *, void *)) {
    g_sampling_handler = handler;
}

bool sampling_stopped() {
    return g_stopped.load(std::memory_order_acquire);
}

bool stop_sampling() {
    return g_stopped.exchange(true);
}

AgentCode::AgentCode() {
    ++tls_agent_depth;
}
AgentCode::~AgentCode() {
    --tls_agent_depth;
}

bool in_agent_code() {
    return tls_agent_depth > 0;
}

ProgramAction &program_sampling_action() {
    return g_program;
}

void forward_to_program(int sig, siginfo_t *si, void *uc) {
    // An overflow (sampling stopped, or before the agent was set up) is
    // never the program's.
    if (si != nullptr && si->si_code == EMT_CPCOVF)
        return;
    KernelSigaction ours;
    if (!read_kernel_action(sig, &ours))
        return;
    run_program_action(g_program.get(), sig, si, uc, ours);
}

bool run_program_action(const struct sigaction &p, int sig, siginfo_t *si, void *uc,
                        const KernelSigaction &restore) {
    if (p.sa_handler == SIG_IGN)
        return false;
    if (p.sa_handler == SIG_DFL) {
        KernelSigaction dfl;
        write_kernel_action(sig, dfl);
        uint64_t mask = uint64_t(1) << (sig - 1);
        syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &mask, nullptr, sizeof mask);
        syscall(SYS_tgkill, getpid(), base::current_tid(), sig);
        write_kernel_action(sig, restore); // a default action that let it live
        return true;
    }
    // The mask the program's handler would have had from the kernel, not
    // the mask of the agent's handler it runs from, which blocks more.
    uint64_t sa_mask = 0;
    std::memcpy(&sa_mask, &p.sa_mask, sizeof sa_mask);
    if (uc != nullptr)
        base::mask_as_the_kernel_would(sig, sa_mask, static_cast<unsigned long>(p.sa_flags), uc);
    else if (sa_mask != 0) // no context to read the interrupted mask from
        syscall(SYS_rt_sigprocmask, SIG_BLOCK, &sa_mask, nullptr, sizeof sa_mask);
    if (p.sa_flags & SA_SIGINFO)
        p.sa_sigaction(sig, si, uc);
    else
        p.sa_handler(sig);
    return true;
}

} // namespace cpcprof::agent
