// SPDX-License-Identifier: MIT
// Off-CPU time (record --off-cpu): each stretch a thread of a recorded
// process spends off the CPU, from its switch out to its switch in, with
// the stack it blocked in.
//
// The kernel's sample rings say when threads switch (cpc_ring_open's
// CPC_RING_SWITCHES, which needs no privilege), never where they wait:
// the kernel samples a switch only for whoever may profile the kernel.  So
// while a thread waits, the recorder reads where from outside: its stack
// pointer and PC at the system call it waits in (/proc/PID/task/TID/syscall,
// which the kernel answers only for a thread that is not running) and the
// top of its stack (process_vm_readv), both allowed to whoever may ptrace
// it, and unwinds that copy as it unwinds a ring sample's (stack_unwind.h).
// The other registers are not known: a walk that needs the frame pointer's
// value (code built with frame pointers, above the system call's own
// wrapper) stops there, marked incomplete.
//
// A read counts for a stretch only if it began after the thread left the
// CPU and ended before it came back, as the rings time both: a thread read
// while it had already run again (and blocked once more) lends its stack
// to no other stretch than the one the read fell in.  A wait too short for
// the recorder to read (it looks about every millisecond) has no stack, and
// is said as such; so has one whose switch out was read after its switch in
// (the rings of the CPUs are read one after the other); so has a preempted thread's wait for a CPU
// (the kernel answers nothing for a runnable thread).  Stretches under min_ns are summed per
// thread, not kept one by one.
//
// Where the user may profile the kernel, the kernel samples the stack at
// each switch out itself (at_switch): every stretch, however short, then
// has its stack, as perf's sched_switch tracepoint gives it, and short
// stretches are summed per stack.
//
// Ordinary context (the recorder's reader thread); not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace cpcprof::record {

// Where a thread that waits in the kernel is, read from outside.
struct WaitingStack {
    uint64_t sp = 0, pc = 0;          // as it entered the kernel
    std::vector<unsigned char> bytes; // its stack from sp up
};

// Reads where thread tid of pid waits, at most max_bytes of its stack:
// false when it runs (or is runnable), is gone, or may not be read.
bool read_waiting_stack(pid_t pid, pid_t tid, size_t max_bytes, WaitingStack *out);

// Time off the CPU as the profile stores it (storage::OffCpu).
struct OffCpuStretch {
    pid_t pid = 0, tid = 0;
    int64_t time_ns = 0;      // CLOCK_MONOTONIC: it left the CPU (the first's, for a sum)
    uint64_t duration_ns = 0; // until it ran again (the sum)
    uint64_t stretches = 1;   // how many duration_ns sums
    bool preempted = false;
    bool complete = false;        // the stack reached the thread's first frame
    std::vector<uint64_t> frames; // leaf first; empty: not read
};

class OffCpuTracker {
  public:
    // Unwinds a read of pid's thread into frames (leaf first, appended):
    // true when the walk reached the thread's first frame.
    using Unwind = std::function<bool(pid_t pid, const WaitingStack &, std::vector<uint64_t> *)>;
    // read: read_waiting_stack, or a test's.
    using Read = std::function<bool(pid_t pid, pid_t tid, WaitingStack *)>;
    // now: CLOCK_MONOTONIC ns, the rings' clock (a test's own otherwise).
    using Clock = std::function<int64_t()>;
    OffCpuTracker(uint64_t min_ns, Unwind unwind, Read read, Clock now);

    // A switch of a thread, in time order per thread.
    void switched(pid_t pid, pid_t tid, int64_t time_ns, bool out, bool preempted);
    // The kernel's sample of the thread's stack as it left the CPU (the
    // event context-switches, where the user may profile the kernel),
    // given before that switch out: the stretch it begins blocked there,
    // however short, with no read from outside.  A sample that no switch
    // out follows within kSwitchSampleSlackNs is no stretch's.
    void at_switch(pid_t pid, pid_t tid, int64_t time_ns, bool complete,
                   std::vector<uint64_t> frames);
    static constexpr int64_t kSwitchSampleSlackNs = 1'000'000;
    // The thread ended: its last switch out never ends.
    void ended(pid_t tid);
    // The thread is none of the program's: what it had is dropped.
    void forget(pid_t tid) { threads_.erase(tid); }
    // Reads where the threads that blocked since the last look wait.
    void look();
    // The stretches ended since the last call, and each thread's sums of
    // short stretches so far.  end (the recording ends now): the threads
    // still off the CPU are off until now, and said too.
    std::vector<OffCpuStretch> take(bool end = false);

    struct Counts {
        uint64_t stretches = 0;  // ended (or cut by the end), every one
        uint64_t read = 0;       // with the stack read while the thread waited
        uint64_t short_ones = 0; // under min_ns, summed
    };
    const Counts &counts() const { return counts_; }

  private:
    struct Sum {
        int64_t first_ns = 0;
        uint64_t ns = 0, count = 0;
    };
    struct Reading {
        int64_t begin_ns = 0, end_ns = 0;
        bool complete = false;
        std::vector<uint64_t> frames;
    };
    struct Thread {
        pid_t pid = 0;
        int64_t out_ns = -1;       // off the CPU since; -1 while on it (or not known)
        int64_t orphan_in_ns = -1; // a switch in whose switch out is not read yet
        bool preempted = false;
        bool to_read = false; // blocked, not read yet
        std::optional<Reading> reading;
        std::optional<Reading> at_switch; // the kernel's, for the next switch out
        Sum blocked_short, preempted_short;
        // Short stretches whose stack is known, summed per stack.
        struct StackSum {
            Sum sum;
            bool complete = false;
        };
        std::map<std::vector<uint64_t>, StackSum> short_at;
    };
    void end_stretch(pid_t tid, Thread &t, int64_t in_ns);
    void flush_sums(pid_t tid, Thread &t);

    uint64_t min_ns_;
    Unwind unwind_;
    Read read_;
    Clock now_;
    std::map<pid_t, Thread> threads_;
    std::vector<OffCpuStretch> done_;
    Counts counts_;
};

} // namespace cpcprof::record
