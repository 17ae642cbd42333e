// SPDX-License-Identifier: MIT
// Clocks as nanoseconds, and the calling thread's id: one place for the
// timespec arithmetic and the gettid(2) call (current_tid).
//
// Every function here is [async-signal-safe]: clock_gettime(2) and
// syscall(2) are, and nothing else is called; errno is left as they leave
// it (clock_gettime does not fail for these clocks).
#pragma once

#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace cpcprof::base {

inline constexpr int64_t kNsPerSecond = 1'000'000'000;
inline constexpr int64_t kNsPerMillisecond = 1'000'000;

// [async-signal-safe]
constexpr int64_t to_ns(const timespec &ts) {
    return int64_t(ts.tv_sec) * kNsPerSecond + int64_t(ts.tv_nsec);
}

// clock's time in ns (0 when the clock does not exist).  [async-signal-safe]
inline int64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return to_ns(ts);
}

// CLOCK_MONOTONIC: libcpc's hrtime_t base, the recorder's timestamps.
// [async-signal-safe]
inline int64_t monotonic_ns() {
    return clock_ns(CLOCK_MONOTONIC);
}

// CLOCK_MONOTONIC in whole milliseconds.  [async-signal-safe]
inline int64_t monotonic_ms() {
    return monotonic_ns() / kNsPerMillisecond;
}

// CLOCK_REALTIME: wall-clock time since the epoch.  [async-signal-safe]
inline int64_t realtime_ns() {
    return clock_ns(CLOCK_REALTIME);
}

// The CPU time the calling thread has used.  [async-signal-safe]
inline int64_t thread_cpu_ns() {
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

// The calling thread's id: gettid(2), by syscall (glibc before 2.30 has no
// wrapper; the name differs from glibc's ::gettid so that neither hides the
// other).
// [async-signal-safe]
inline pid_t current_tid() {
    return static_cast<pid_t>(syscall(SYS_gettid));
}

} // namespace cpcprof::base
