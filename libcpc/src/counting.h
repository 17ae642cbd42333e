// SPDX-License-Identifier: MIT
// One bound set: the counting of one thread (or one CPU), with the 64-bit
// virtual counters of illumos kept on top.  Two backends serve it:
//
//   PerfCounting (counting_perf.h)   a perf event group;
//   TimerCounting (counting_timer.h) where perf_event_open is refused: the
//       thread's CPU clock, a POSIX CPU-time timer for overflows, and
//       getrusage(RUSAGE_THREAD) for faults and context switches.
//
// Both raise the kernel's notification as SIGTRAP in the counting thread
// (perf's sigtrap, or the timer's signal), which overflow_linux.cpp turns
// into the program's SIGEMT; both freeze the set at an overflow until
// cpc_set_restart.  Which backend a bind uses is the handle's machine's
// (BindSpec::backend), so a thread that inherits a set uses its binder's.
#pragma once

#include "libcpc.h"
#include "libcpc/src/machine.h"

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace cpc {

// What binding a set needs; copied into every thread that inherits it.
struct BindSpec {
    std::vector<perf_event_attr> attrs; // type/config and exclusion bits
    std::vector<uint64_t> presets;
    std::vector<bool> notify;
    const cpc_set_t *owner = nullptr; // identity only, never dereferenced
    // The handle that bound the set: a thread that inherits the set and
    // cannot count reports it through the handle's error handler, if the
    // handle is still open (error_handler_of).
    cpc_t *cpc = nullptr;
    bool inherit = false;
    Backend backend = Backend::perf;
};

struct OpenError {
    int err = 0;      // errno for the caller
    int subcode = -1; // CPC_* subcode, or -1
    int request = -1; // request index that failed, -1 if none
    int sys_errno = 0;
};

class Counting {
  public:
    // Opens the counting stopped, with spec.backend.  pid 0 = calling
    // thread, or cpu >= 0 with pid -1 for a whole CPU (perf only).
    // Nothing counts until start().
    static std::unique_ptr<Counting> open(const BindSpec &spec, pid_t pid, int cpu, OpenError *err);
    virtual ~Counting();

    // [async-signal-safe] Resets every request to its preset and counts.
    virtual int restart() = 0;
    // [async-signal-safe] Starts counting as bound (values at presets).
    int start() { return restart(); }
    // [async-signal-safe] Changes request index's preset for the next restart.
    int set_preset(int index, uint64_t preset);
    // [async-signal-safe] Reads the virtual values; EAGAIN when the counts
    // are incomplete (perf multiplexed the group).
    virtual int sample(uint64_t *values, int n, hrtime_t *when, uint64_t *tick) = 0;
    // [async-signal-safe] Stops / resumes counting without resetting.
    virtual int freeze() = 0;
    virtual int thaw() = 0;
    // [async-signal-safe] Marks every request as if it had just wrapped:
    // notify requests read UINT64_MAX, frozen (illumos inheritance).
    virtual void freeze_at_overflow() = 0;

    // [async-signal-safe] What a SIGTRAP in the counting thread is to this
    // counting: not its own (forwarded to the program), its own but no
    // overflow of the program's (a step of a chained period, a second
    // overflow while frozen), or an overflow to report as SIGEMT.
    enum class Trap { not_ours, internal, overflow };
    virtual Trap on_trap(const siginfo_t *si) = 0;
    // [async-signal-safe] After the SIGEMT of an overflow was delivered:
    // whether another overflow that the same signal brought is due now
    // (the timer's overruns: each is an overflow of its own, frozen and
    // reported in turn when the program restarted the set after the last).
    virtual bool next_overflow() { return false; }
    // [async-signal-safe] The overflow was queued as a real SIGEMT rather
    // than run in place: the overflows still due go with it as merged.
    virtual void overflows_merged_into_queued() {}

    // [async-signal-safe] Overflows that came before the one the last
    // SIGEMT reported and whose signals merged into it: their number, and
    // the PCs of up to max of them, oldest first, in pcs (where the kernel
    // kept them).
    virtual uint64_t merged_overflows(uint64_t *pcs, int max, int *npcs) const = 0;
    // [async-signal-safe] The kernel's frames of the overflow the last
    // SIGEMT reported, innermost first, up to max in pcs: how many (0 where
    // it was taken in user mode or the kernel kept none).
    virtual int kernel_frames(uint64_t *, int) const { return 0; }

    // Forgets the kernel's objects without touching them (a fork child:
    // perf's descriptors are the parent's counters; timers are not
    // inherited, and their ids may be reused by the child's own).
    virtual void abandon() = 0;

    bool frozen() const { return frozen_; }
    uint32_t id() const { return id_; }
    pid_t tid() const { return tid_; } // the counting thread (curlwp)
    int nreqs() const { return static_cast<int>(presets_.size()); }
    const BindSpec &spec() const { return spec_; }
    // The spec with the current presets, for a thread that inherits it.
    BindSpec inherited_spec() const;

  protected:
    explicit Counting(const BindSpec &spec);
    // A new id for every incarnation of the kernel's objects: a SIGTRAP
    // still pending from ones closed since is not taken for theirs.
    void new_id();

    BindSpec spec_;
    std::vector<uint64_t> presets_; // the current presets (cpc_request_preset)
    pid_t tid_ = 0;
    uint32_t id_ = 0;
    bool frozen_ = true;
};

// The cookie the kernel hands back with a notification: the counting's id
// and the request's index (sig_data of perf, sigev_value of a timer).
inline uint64_t trap_cookie(uint32_t id, int index) {
    return (uint64_t(id) << 8) | uint64_t(index & 0xff);
}

// [async-signal-safe] Whether cookie is one trap_cookie made for a
// counting of this process (a timer's signal still queued when its
// counting went).
bool issued_trap_cookie(uint64_t cookie);

} // namespace cpc
