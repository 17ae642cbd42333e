// SPDX-License-Identifier: MIT
// A value computed at its first use and kept, without a guarded static.
//
// A function-local static with a dynamic initializer is guarded: the
// first thread takes the guard, the others wait on it.  A process that
// forks while one of its threads holds such a guard leaves it taken in
// the child, where no thread will ever release it, and the child's first
// use waits forever (a profiled fork child's drain thread hung so, naming
// itself through an interposer whose libc pointer was such a static).
// Here threads that race both compute the value and store the same one:
// compute must give the same result wherever it runs (a symbol's address,
// a resource limit).  [async-signal-safe when compute is]
#pragma once

#include <atomic>

namespace cpcprof::base {

template <class T, class Compute> T computed_once(std::atomic<T> &slot, T unset, Compute compute) {
    T v = slot.load(std::memory_order_acquire);
    if (v == unset) {
        v = compute();
        slot.store(v, std::memory_order_release);
    }
    return v;
}

} // namespace cpcprof::base
