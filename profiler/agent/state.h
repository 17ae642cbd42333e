// SPDX-License-Identifier: MIT
// The agent's process-wide state: configuration, the libcpc set, and the
// table of per-thread slots that the overflow handler writes into.
//
// Everything the handler touches is allocated before a thread's first
// sample: slots come in chunks with their rings and cpc_buf_t (slots.h),
// made at start-up and when a new thread finds none free.  A thread takes
// a free slot (compare-and-swap on its tid) when it starts, or at its
// first sample; the drain thread frees the slots of threads that have
// ended.
#pragma once

#include "profiler/agent/config.h"
#include "profiler/agent/slots.h"

#include <libcpc.h>

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <sys/types.h>

namespace cpcprof::agent {

// Merged overflows recorded with their PC per signal (handler.cpp).
inline constexpr int kMaxMerged = 32;

struct State {
    Config cfg;
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    // libcpc serves the events with POSIX CPU timers (perf_event_open
    // refused): a thread's counters take no descriptor.
    bool timer_backend = false;
    std::atomic<bool> armed{false}; // handler records samples
    SlotTable slots;
    // Completeness of a stack: its outermost frame is in libc (thread and
    // process start code) or at the executable's entry point.
    uintptr_t libc_lo = 0, libc_hi = 0;
    uintptr_t entry_lo = 0, entry_hi = 0;
    // The profiler's own code (the agent's and libcpc's executable
    // segments): its frames between the program's (thread start, the
    // pthread_create wrappers) are left out of the program's stacks.
    uintptr_t own_lo[2] = {}, own_hi[2] = {};
    std::atomic<uint64_t> no_slot{0}; // overflows lost for want of a free slot
    // Threads started without counters - the descriptor budget was spent
    // (fds.h), the kernel refused them (libcpc's error handler), or the
    // process runs under a seccomp filter - and the CPU time they had used
    // when they ended (CLOCK_THREAD_CPUTIME_ID; threads still running at
    // the process's end are not in it).  The drain thread sends the CPU
    // time's increments as the accounting's unsampled time.
    std::atomic<uint64_t> threads_unsampled_no_counters{0};
    std::atomic<uint64_t> unsampled_cpu_ns_no_counters{0};
    double tsc_per_ns = 0; // 0: handler costs are not measured
    // Costs of threads whose slots were freed (drain thread only).
    uint64_t cost_total[2][kCostBuckets] = {};
};

// The overflow handler's data (slot_claim.cpp, signal context) --------------

// [async-signal-safe] The process's state.
State &state();

// [async-signal-safe] The calling thread's slot, claimed on first use;
// null when every slot is taken.
Slot *current_slot();

// [async-signal-safe] The calling thread's slot if it has claimed one.
Slot *claimed_slot();

// Forgets the calling thread's slot (fork child).
void forget_current_slot();

// [async-signal-safe] Only slots below this index have ever been claimed in
// this process (threads claim the lowest free one): loops over the slots
// stop there, and the untouched ones cost no page fault.
int slot_bound();

// Ordinary context -----------------------------------------------------------

// The program named thread t (pthread_setname_np, prctl(PR_SET_NAME);
// thread_setup.cpp).
void note_thread_name(pthread_t t, const char *name);

// The calling thread counts with its own bound set (the thread that bound
// it, and a fork child's), so its first overflow signal is a sample, not
// the one an inheriting thread receives at creation (handler.cpp).
void thread_counts_already();

} // namespace cpcprof::agent
