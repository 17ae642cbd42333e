// SPDX-License-Identifier: MIT
// The perf backend of a bound set (counting.h): a perf event group
// counting for one thread (or one CPU).
//
// Virtual value of request i = base[i] + kernel count[i] (mod 2^64), where
// base is the preset at bind/restart.  A CPC_OVF_NOTIFY_EMT request is a
// sampling event with sample_period = 2^64 - preset and perf's sigtrap, so
// the kernel raises SIGTRAP in the counting thread at overflow; periods of
// 2^63 or more (which perf refuses) are counted as a chain of shorter
// periods that re-arm silently.
//
// At overflow the set is frozen in software: the group's values of that
// instant are kept - written by the kernel into the overflow request's
// ring (sample_ring.h), or read when there is no ring - and the kernel
// counts on until cpc_set_restart moves the bases so that the values count
// from the presets at the overflow instant, or until a second overflow,
// which disables the group (and cpc_set_restart then resets and enables
// it).  The next period is thus counted from the overflow, not from the
// restart, as perf counts its own periods, and an overflow and its
// restart make no system call: disabling and enabling would cost four
// (and for a clock, cpu-clock or task-clock, reprogram an hrtimer twice).
//
// The kernel's sample period is only ever changed by reopening the group:
// IOC_PERIOD on a software event leaves perf's period bookkeeping one
// period behind (perf_swevent_set_period uses last_period), so it is used
// only with the current value, to restart a full period.
#pragma once

#include "base/scoped_fd.h"
#include "libcpc/src/counting.h"
#include "libcpc/src/sample_ring.h"

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace cpc {

class PerfCounting final : public Counting {
  public:
    static std::unique_ptr<Counting> open(const BindSpec &spec, pid_t pid, int cpu, OpenError *err);
    ~PerfCounting() override;

    int restart() override;
    int sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) override;
    int freeze() override;
    int thaw() override;
    void freeze_at_overflow() override;
    Trap on_trap(const siginfo_t *si) override;
    uint64_t merged_overflows(uint64_t *pcs, int max, int *npcs) const override;
    int kernel_frames(uint64_t *pcs, int max) const override;
    void abandon() override;

    // [async-signal-safe] The kernel's overflow of request index.  Returns
    // true when the overflow is the user's (signal SIGEMT), false for an
    // intermediate step of a chained long period.
    bool on_kernel_overflow(int index);

    // Overflows whose values were read from the group (no ring) rather
    // than taken from the overflow request's ring.
    uint64_t overflow_reads() const { return overflow_reads_; }
    // Whether every overflow request has its ring.
    bool has_rings() const;

    // Largest kernel period used for one link of a chain; tests lower it.
    static void set_max_kernel_period(uint64_t p);
    // Whether groups opened from now on map their rings; tests turn it off
    // to take the path of a process that may not map any.
    static void set_rings_enabled(bool on);

  private:
    struct Slot {
        cpcprof::base::ScopedFd fd;
        SampleRing ring; // overflow requests: the group's values at overflow
        perf_event_attr attr{};
        uint64_t base = 0;
        uint64_t chain_left = 0; // events still to count after this link
        bool notify = false;
        bool overflowed = false; // the kernel has just started a new period
    };

    explicit PerfCounting(const BindSpec &spec) : Counting(spec) {}
    int open_group();
    void close_group();
    int reopen_preserving();
    int read_group(uint64_t *enabled, uint64_t *running);
    int snapshot(int index);
    int leader() const;

    std::vector<Slot> slots_;
    // cpc_buf_tick: the group's running time (the leader's
    // time_running), which for a thread's group is its on-CPU time while
    // the set counts, and for a CPU's the CPU's time.  A task-clock
    // member did the same at the cost of a second descriptor per thread,
    // in a program's own descriptor table.
    uint64_t tick_base_ = 0;
    std::vector<uint64_t> readbuf_; // preallocated for read_group
    std::vector<uint64_t> snap_;    // the group's values at the last overflow
    pid_t pid_ = 0;
    int cpu_ = -1;
    // Frozen at an overflow while the kernel counts on (see
    // on_kernel_overflow); sample() answers from snap_ while have_snap_.
    bool soft_ = false;
    bool have_snap_ = false;
    int last_failed_ = -1; // request whose open failed
    uint64_t overflow_reads_ = 0;
    // The last user overflow's merged predecessors (merged_overflows).
    RingHarvest merged_;
    uint64_t merged_count_ = 0;
};

} // namespace cpc
