// Stack walking from the overflow handler (signal context): no allocation,
// no locks, bounded by max.  Frames are leaf first; frames[0] is the
// interrupted PC, the others return addresses.
#pragma once

#include <cstdint>
#include <ucontext.h>

namespace cpcprof::agent {

struct Slot;

// [async-signal-safe] libunwind's cached walk (unw_backtrace) from the
// handler through the signal frame; returns the number of frames.
int unwind_dwarf(uintptr_t pc, uint64_t *frames, int max, bool *complete);

// [async-signal-safe] Frame-pointer walk from the interrupted context,
// reading only inside the thread's stack [lo, hi).
int unwind_fp(const ucontext_t *uc, uintptr_t lo, uintptr_t hi, uint64_t *frames, int max,
              bool *complete);

// Prepares libunwind for use in signal context in the calling thread
// (per-thread caches, first-walk costs).  Not async-signal-safe.
void warm_unwinder();

} // namespace cpcprof::agent
