// SPDX-License-Identifier: MIT
// libcpc's side of cpc_bind_pctx (libpctx's own files are pctx_*): the
// counters of one thread of a process that libpctx controls.
//
// A perf event group opened on the thread's tid, like Counting's, with the
// illumos 64-bit virtual value preset + count and the task-clock tick; but
// only counting and reading: no overflow (refused at bind), no restart.
// The events are perf remove_on_exec: at exec they stop, as an illumos
// LWP's context goes at exec, holding the old image's final counts for
// fini_lwp.  The kernel then takes the group apart (Linux 6.18: a group
// read of the leader returns the leader alone), so a read that finds the
// group smaller than it was reads each event by itself.
//
// Not Counting: Counting reads the group in one read and fails on a group
// that exec took apart.
//
// On the timer backend (perf_event_open refused) the same values come
// from the thread's /proc/PID/task/TID files, opened at bind: its on-CPU
// time from schedstat (cpu-clock, task-clock and the tick; user and
// system time together, as the CPU clock counts), its faults from stat
// (minflt, majflt) and its context switches from status (voluntary and
// not), each counted from its value at bind.
#pragma once

#include "base/scoped_fd.h"
#include "libcpc.h"
#include "libcpc/src/counting.h"

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace cpc {

class PctxCounters {
  public:
    // Opens the group on thread tid and starts it.
    static std::unique_ptr<PctxCounters> open(const BindSpec &spec, pid_t tid, OpenError *err);

    // Virtual values; EAGAIN when the kernel multiplexed the group.  Not
    // async-signal-safe only in that it must not race a bind or unbind.
    int sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick);

  private:
    PctxCounters() = default;
    static std::unique_ptr<PctxCounters> open_proc(const BindSpec &spec, pid_t tid, OpenError *err);
    int read_one(int fd, uint64_t *value, uint64_t *enabled, uint64_t *running);
    // The timer backend's sources (TimerSource) of the thread now.
    int read_proc(uint64_t *raw);
    int sample_proc(uint64_t *values, int n, hrtime_t *when, uint64_t *tick);

    std::vector<cpcprof::base::ScopedFd> fds_; // requests, the leader first, then the tick
    std::vector<uint64_t> presets_;
    std::vector<uint64_t> buf_; // preallocated for group reads
    // Timer backend: schedstat, stat, status of the thread; each
    // request's source, and the sources' values at bind.
    bool proc_ = false;
    cpcprof::base::ScopedFd schedstat_, stat_, status_;
    std::vector<int> sources_;
    std::vector<uint64_t> base_;
};

} // namespace cpc
