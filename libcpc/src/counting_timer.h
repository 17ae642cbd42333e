// SPDX-License-Identifier: MIT
// The timer backend of a bound set (counting.h), for where perf_event_open
// is refused: a container's seccomp profile (EPERM), perf_event_paranoid
// above the caller's privilege (EACCES), a kernel without it (ENOSYS).
//
// Each request reads a per-thread source of the kernel's accounting:
//   cpu-clock, task-clock    the thread's CPU time in ns
//                            (clock_gettime(CLOCK_THREAD_CPUTIME_ID));
//   page-faults, minor-faults, major-faults, context-switches
//                            getrusage(RUSAGE_THREAD).
// Virtual value = base + source (mod 2^64); restart sets base = preset -
// source.  The thread's CPU time is its user and system time together:
// CPC_COUNT_USER and CPC_COUNT_SYSTEM select nothing here.
//
// A CPC_OVF_NOTIFY_EMT request (a clock only) has a POSIX CPU-time timer
// on the thread's clock, periodic with period 2^64 - preset ns, delivered
// to the thread (SIGEV_THREAD_ID) as SIGTRAP with si_code SI_TIMER and the
// counting's cookie in si_value.  The kernel checks CPU timers only at a
// tick that finds the thread running (4 ms at HZ=250), so a shorter period
// expires several times per signal: the signal carries the expiries since
// the last (si_overrun), and each is an overflow of its own, reported as
// its own SIGEMT with the PC the thread was interrupted at
// (next_overflow).  That PC is where a tick, which does not follow the
// program, found the thread running: a fair draw from the CPU time since
// the last check.  Beside other busy threads the checks grow far apart:
// measured on a 2-CPU VM beside 5 CPU-bound threads, 5-25 % of a thread's
// CPU time came between checks 20-134 ms of its CPU time apart (quiet:
// none beyond 10 ms).  Expiries further back than kAttributableNs (more
// likely a thread that blocked SIGTRAP with a raw system call
// meanwhile), and any beyond kMaxOverflowsInPlace, are merged overflows
// without a PC (cpc_set_merged_overflows).
//
// An overflow freezes the set in software, as on the perf backend: the
// values of the overflow instant are kept (the overflowing request's is
// its period's end, others are read), the timer runs on, and
// cpc_set_restart counts on from the presets at that instant without a
// system call.  A second overflow while frozen stops the timer, and
// cpc_set_restart then re-arms it.  So do the handlers of one signal's
// overflows when they took more than half the CPU time the overflows they
// reported stand for (a handler nearly as slow as the period, which would
// otherwise leave the program nothing): the set then counts on from the
// presets at the last restart, as if it had been frozen while they ran.
// A signal of a schedule re-armed since (one that was queued while the
// set was frozen) finds its expiry not yet due and is not an overflow.
// cpc_buf_tick is the thread's CPU time while the set counted.
#pragma once

#include "libcpc/src/counting.h"

#include <time.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace cpc {

// What the timer backend reads for an event (TimerCounting::source_of):
// the thread's CPU time, its page faults (both kinds, minor, major) and
// its context switches (voluntary and not).
enum TimerSource : int {
    kCpuTime,
    kFaults,
    kMinorFaults,
    kMajorFaults,
    kContextSwitches,
    kSources
};

class TimerCounting final : public Counting {
  public:
    // The overflows of one signal reported as SIGEMTs in a row.
    // (2500: kAttributableNs at 10 kHz.)
    static constexpr uint64_t kMaxOverflowsInPlace = 2500;
    // How far back in the thread's CPU time an expiry may lie and still be
    // reported at the PC the signal interrupted: beyond the longest gap
    // between the kernel's checks measured on a busy machine (above).
    static constexpr uint64_t kAttributableNs = 250000000;

    // The calling thread's counting.  Requests whose event this backend
    // does not serve, or that ask for overflows of a count, fail with
    // EOPNOTSUPP and their index.
    static std::unique_ptr<Counting> open(const BindSpec &spec, OpenError *err);
    ~TimerCounting() override;

    int restart() override;
    int sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) override;
    int freeze() override;
    int thaw() override;
    void freeze_at_overflow() override;
    Trap on_trap(const siginfo_t *si) override;
    bool next_overflow() override;
    void overflows_merged_into_queued() override;
    uint64_t merged_overflows(uint64_t *pcs, int max, int *npcs) const override;
    void abandon() override;

    // The source a request of this attr reads, or -1 when the backend
    // does not serve it; whether it can have a timer.
    static int source_of(const perf_event_attr &attr);
    static bool can_notify(int source);

  private:
    struct Req {
        int source = 0;
        bool notify = false;
        uint64_t base = 0;
        // Notify requests: the timer, its period and the source's value
        // at its next expiry (the kernel's schedule).
        timer_t timer{};
        bool has_timer = false;
        uint64_t period = 0;
        uint64_t due = 0;
    };

    explicit TimerCounting(const BindSpec &spec) : Counting(spec) {}
    // [async-signal-safe] Every source's value now, into raw_.
    int read_sources();
    int arm(Req &r, uint64_t first);
    void disarm_all();
    void take_overflow(int index);
    // [async-signal-safe]
    bool handlers_outran_overflows();

    std::vector<Req> reqs_;
    std::vector<uint64_t> raw_;  // the sources, by source id
    std::vector<uint64_t> snap_; // the virtual values while have_snap_
    bool need_rusage_ = false;
    bool soft_ = false;      // frozen at an overflow, the timers running
    bool have_snap_ = false; // sample() answers from snap_
    // cpc_buf_tick: CPU time counted, as a request that restart leaves be.
    uint64_t tick_base_ = 0;
    uint64_t tick_snap_ = 0;
    int overflowed_ = -1;  // the request of the overflows still due
    uint64_t pending_ = 0; // overflows of the last signal still to report
    // The last signal: the thread's CPU time when it came, its overflows
    // reported in place.
    uint64_t signal_cpu_ = 0;
    uint64_t signal_overflows_ = 0;
    uint64_t merged_count_ = 0;
};

} // namespace cpc
