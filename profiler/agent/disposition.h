// SPDX-License-Identifier: MIT
// The disposition a program asked for and believes it has, beside the one
// the kernel holds (base/kernel_sigaction.h: sigaction(3) is interposed by
// this very library).
#pragma once

#include "base/kernel_sigaction.h"

#include <signal.h>

#include <atomic>

namespace cpcprof::agent {

// The kernel's struct sigaction and its system calls (base/kernel_sigaction.h).
using base::KernelSigaction;
using base::read_kernel_action;
using base::to_sigaction;
using base::write_kernel_action;

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
