// SPDX-License-Identifier: MIT
// The kernel raises SIGTRAP (si_code TRAP_PERF) in a thread whose counter
// overflows; libcpc's handler turns it into the sampling signal.  A
// program that changes SIGTRAP's disposition would receive the profiler's
// traps - and with the default action be killed by the first one - so:
//   - libcpc's handler is captured when the agent's first bind installs
//     it; from then on the sigaction wrapper (signals.cpp) records the
//     program's SIGTRAP action without installing it, and libcpc passes
//     every SIGTRAP that is not an overflow to trap_to_program(), which
//     gives it to that action (its handler, its default action, or none);
//   - a change made with the raw system call, which no wrapper sees (Go's
//     runtime takes every signal that way; a fork child may reset them
//     all), is found by the drain thread: the disposition is put back,
//     the program's choice recorded as above, and sampling stops in the
//     process (overflows no longer restarted: each thread takes at most
//     one more trap, which libcpc's handler absorbs).  Until the drain
//     thread looks, an overflow goes to the program: it looks every
//     250 us for the first 25 ms of a process and of a fork child (when
//     runtimes and children do it), every 5 ms after that.
#include "profiler/agent/overflow_signal.h"

#include "profiler/agent/channel.h"
#include "profiler/agent/handler_entry.h"
#include "profiler/agent/process.h"
#include "profiler/agent/signals.h"

#include <libcpc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

namespace cpcprof::agent {

namespace {

constinit KernelSigaction g_libcpc_trap; // libcpc's SIGTRAP action, as the kernel holds it
constinit KernelSigaction g_sampling;    // the agent's SIGEMT action
std::atomic<bool> g_captured{false}, g_sampling_known{false};
constinit ProgramAction g_program_trap;
// Execs under way in this process (signals_before_exec to
// signals_after_failed_exec): the dispositions they set (SIG_IGN for a
// signal the program ignores) are the agent's, not a takeover.  seq_cst:
// raised before the disposition is written, so a watch that reads that
// disposition and then this count sees the exec.  Not counted in a vfork
// child, whose memory is its parent's but whose dispositions are its own.
std::atomic<int> g_execs{0};

// [async-signal-safe] libcpc's "previous action" for SIGTRAP.
void trap_to_program(int sig, siginfo_t *si, void *uc) {
    // An overflow of a set that is no longer bound (a thread's last
    // trap): the profiler's, never the program's.
    if (si != nullptr && si->si_code == TRAP_PERF)
        return;
    struct sigaction p = g_program_trap.get();
    if (p.sa_flags & SA_RESETHAND) {
        struct sigaction dfl = p;
        dfl.sa_handler = SIG_DFL;
        dfl.sa_flags &= ~SA_SIGINFO;
        g_program_trap.set(dfl);
    }
    run_program_action(p, sig, si, uc, g_libcpc_trap);
}

// Read after the disposition (see g_execs).
bool exec_under_way() {
    return g_execs.load(std::memory_order_seq_cst) > 0;
}

std::string describe(const KernelSigaction &now) {
    auto h = reinterpret_cast<sighandler_t>(now.handler);
    if (h == SIG_DFL)
        return "with the default action";
    if (h == SIG_IGN)
        return "with SIG_IGN";
    return "with a handler of its own";
}

// The program replaced the disposition of sig (now) with the raw system
// call: ours goes back, the program's becomes what its own signals get.
void taken_over(int sig, const KernelSigaction &ours, const KernelSigaction &now,
                ProgramAction &program, const std::string &what, const char *why) {
    write_kernel_action(sig, ours);
    program.set(to_sigaction(now));
    if (stop_sampling())
        return; // said once per process
    char pid[32];
    std::snprintf(pid, sizeof pid, "%d", static_cast<int>(getpid()));
    send_error("the program replaced the handler of " + what + " " + describe(now) +
               ", which the profiler needs (" + why +
               "), by a direct system call that cpcprof cannot intercept; sampling stopped in "
               "process " +
               pid + " (" + process_name() + "); the program keeps receiving its own " + what +
               " signals");
}

} // namespace

void follow_program_trap_stack(const struct sigaction &program) {
    if (!(program.sa_flags & SA_SIGINFO) &&
        (program.sa_handler == SIG_DFL || program.sa_handler == SIG_IGN))
        return;
    unsigned long want = program.sa_flags & SA_ONSTACK;
    if ((g_libcpc_trap.flags & SA_ONSTACK) == want)
        return;
    // The watcher compares handlers only: changing the flags is no takeover.
    KernelSigaction k = g_libcpc_trap;
    k.flags = (k.flags & ~static_cast<unsigned long>(SA_ONSTACK)) | want;
    if (write_kernel_action(SIGTRAP, k))
        g_libcpc_trap = k;
}

int capture_overflow_handler(sigaction_fn real, const struct sigaction *act,
                             struct sigaction *old) {
    struct sigaction before;
    int rc = real(SIGTRAP, act, &before);
    if (rc != 0 || !read_kernel_action(SIGTRAP, &g_libcpc_trap))
        return rc;
    g_program_trap.set(before);
    follow_program_trap_stack(before);
    g_captured.store(true, std::memory_order_release);
    if (old != nullptr) {
        std::memset(old, 0, sizeof *old);
        old->sa_sigaction = trap_to_program;
        old->sa_flags = SA_SIGINFO;
        sigemptyset(&old->sa_mask);
    }
    return 0;
}

namespace {

// Whether the program ignores sig (its action, as the agent keeps it).
bool ignored(ProgramAction &program) {
    struct sigaction p = program.get();
    return !(p.sa_flags & SA_SIGINFO) && p.sa_handler == SIG_IGN;
}

void ignore_for_exec(int sig, bool kept, ProgramAction &program) {
    if (!kept || !ignored(program))
        return;
    KernelSigaction ign;
    ign.handler = reinterpret_cast<void *>(SIG_IGN);
    write_kernel_action(sig, ign);
}

void restore_after_exec(int sig, bool kept, ProgramAction &program, const KernelSigaction &ours) {
    if (kept && ignored(program))
        write_kernel_action(sig, ours);
}

} // namespace

void signals_before_exec() {
    if (getpid() == agent_pid())
        g_execs.fetch_add(1, std::memory_order_seq_cst);
    ignore_for_exec(SIGTRAP, overflow_handler_captured(), g_program_trap);
    ignore_for_exec(SIGEMT, g_sampling_known.load() && signals_guarded(),
                    program_sampling_action());
}

void signals_after_failed_exec() {
    int saved = errno;
    restore_after_exec(SIGTRAP, overflow_handler_captured(), g_program_trap, g_libcpc_trap);
    restore_after_exec(SIGEMT, g_sampling_known.load() && signals_guarded(),
                       program_sampling_action(), g_sampling);
    if (getpid() == agent_pid())
        g_execs.fetch_sub(1, std::memory_order_seq_cst);
    errno = saved;
}

void say_stopped_in_fork_child() {
    send_error("process " + std::to_string(getpid()) + " (" + process_name() +
               "), a fork child of process " + std::to_string(getppid()) +
               ", is not sampled: sampling stopped in its parent, which took the signals the "
               "profiler needs");
}

bool overflow_handler_captured() {
    return g_captured.load(std::memory_order_acquire);
}

ProgramAction &program_trap_action() {
    return g_program_trap;
}

void note_sampling_action() {
    if (read_kernel_action(SIGEMT, &g_sampling))
        g_sampling_known.store(true, std::memory_order_release);
}

void watch_overflow_signals() {
    KernelSigaction now;
    if (overflow_handler_captured() && read_kernel_action(SIGTRAP, &now) &&
        now.handler != g_libcpc_trap.handler && !exec_under_way())
        taken_over(SIGTRAP, g_libcpc_trap, now, g_program_trap, "SIGTRAP",
                   "the kernel raises it at counter overflow");
    if (g_sampling_known.load(std::memory_order_acquire) && signals_guarded() &&
        read_kernel_action(SIGEMT, &now) && now.handler != g_sampling.handler && !exec_under_way())
        taken_over(SIGEMT, g_sampling, now, program_sampling_action(),
                   "SIGEMT (signal " + std::to_string(SIGEMT) + ")", "it takes the samples");
}

} // namespace cpcprof::agent
