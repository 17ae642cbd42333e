// SPDX-License-Identifier: MIT
// perf_event_open(2) as libcpc calls it, and the read format of its
// counter groups.  Not for signal context.
#pragma once

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>

namespace cpc {

// The read format of every group libcpc reads: all members at once, with
// the times enabled and running (for multiplexed counters).
inline constexpr uint64_t kGroupReadFormat =
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;

// perf_event_open(2) with close-on-exec (a.size set here): the new
// descriptor, or -1 with errno.
inline int perf_event_open_cloexec(perf_event_attr *a, pid_t pid, int cpu, int group) {
    a->size = sizeof *a;
    return static_cast<int>(syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC));
}

} // namespace cpc
