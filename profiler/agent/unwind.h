// SPDX-License-Identifier: MIT
// Stack walking from the overflow handler (signal context): no allocation,
// no locks, bounded by max.  Frames are leaf first; frames[0] is the
// interrupted PC, the others return addresses (or, past a signal
// trampoline, the PC the signal interrupted).  Frames in the profiler's
// own code (the agent's and libcpc's, State::own_*) are left out but as
// the leaf; the walks go on through them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ucontext.h>

namespace cpcprof::agent {

struct Slot;

// Memory a walk may copy a stack into: for a stack the program made itself
// (a coroutine's, a Go goroutine's), which is neither the thread's nor the
// alternate signal stack, so that its bounds are unknown.  Preallocated
// (the thread's slot holds it); none: such a stack is not read.
struct Scratch {
    unsigned char *data = nullptr;
    size_t size = 0;
};

// [async-signal-safe] DWARF call-frame walk from the interrupted context
// with the agent's own CFI tables (cfi.h), reading only inside the
// thread's stack [lo, hi); complete when it reaches a frame the CFI marks
// outermost (_start, clone3).  Passes signal frames (an "S" CIE or glibc's
// __restore_rt code) through the ucontext on the stack.  Interrupted on a
// stack of the program's own making, it walks what a system call could
// copy of it from the stack pointer up into scratch (at most its size),
// reading nothing in place.
int unwind_dwarf(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
                 bool *complete, Scratch scratch = {});

// [async-signal-safe] Frame-pointer walk from the interrupted context,
// reading only inside the thread's stack [lo, hi).
int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete);

} // namespace cpcprof::agent
