// Signal dispositions as the kernel holds them, read and written with the
// rt_sigaction system call itself (sigaction(3) is interposed by this very
// library), and the disposition a program asked for and believes it has.
#pragma once

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace cpcprof::agent {

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

// What the program installed for a signal the agent keeps for itself: two
// copies and the index of the current one, so that a handler reading it
// never sees half of an update.  Updates come from the program's
// sigaction calls and the drain thread.  [async-signal-safe]
//
// Constant-initialized (all zero: SIG_DFL), so that it is ready before any
// constructor runs - the agent's own installs libcpc's handler.
class ProgramAction {
  public:
    constexpr ProgramAction() = default;
    struct sigaction get() const {
        return copies_[current_.load(std::memory_order_acquire)];
    }
    void set(const struct sigaction &sa) {
        int next = 1 - current_.load(std::memory_order_relaxed);
        copies_[next] = sa;
        current_.store(next, std::memory_order_release);
    }

  private:
    struct sigaction copies_[2] = {};
    std::atomic<int> current_{0};
};

// [async-signal-safe] Runs the handler of `p` for a signal that reached the
// agent's handler but is the program's, as the kernel would have run it:
// with its sa_mask added to the mask (the interrupted mask comes back at
// sigreturn).  The default action is taken for real: the disposition is
// set to it, the signal unblocked and sent again to this thread.  `restore`
// is what the disposition is set back to should the thread survive it (a
// default action that only stops or ignores).  Returns false when the
// program ignores the signal.  (handler_entry.cpp)
bool run_program_action(const struct sigaction &p, int sig, siginfo_t *si, void *uc,
                        const KernelSigaction &restore);

} // namespace cpcprof::agent
