// SPDX-License-Identifier: MIT
// Stack walking from the overflow handler (signal context): no allocation,
// no locks, bounded by max.  Frames are leaf first; frames[0] is the
// interrupted PC, the others return addresses (or, past a signal
// trampoline, the PC the signal interrupted).  Frames in the profiler's
// own code (the agent's and libcpc's, State::own_*) are left out but as
// the leaf; the walks go on through them.
#pragma once

#include <cstdint>
#include <ucontext.h>

namespace cpcprof::agent {

struct Slot;

// [async-signal-safe] DWARF call-frame walk from the interrupted context
// with the agent's own CFI tables (cfi.h), reading only inside the
// thread's stack [lo, hi); complete when it reaches a frame the CFI marks
// outermost (_start, clone3).  Passes signal frames (an "S" CIE or glibc's
// __restore_rt code) through the ucontext on the stack.
int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete);

// [async-signal-safe] Frame-pointer walk from the interrupted context,
// reading only inside the thread's stack [lo, hi).
int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete);

} // namespace cpcprof::agent
