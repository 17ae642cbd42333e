// The agent's process-wide state: configuration, the libcpc set, and the
// pool of per-thread slots that the overflow handler writes into.
//
// Everything the handler touches is allocated before sampling starts: the
// slot array is static, every slot's ring lives in one mapping made at
// start-up, and every slot has its cpc_buf_t.  A thread takes a free slot
// (compare-and-swap on its tid) at its first sample; the drain thread frees
// the slots of threads that have ended.
#pragma once

#include "ring.h"

#include <libcpc.h>

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <sys/types.h>

namespace cpcprof::agent {

enum class CallGraph { dwarf, fp, none };

inline constexpr int kMaxSlots = 1024;
// Handler cost histograms: 25 ns buckets up to 20 us, then one overflow.
inline constexpr int kCostBuckets = 801;
inline constexpr uint64_t kCostBucketNs = 25;
inline constexpr int kMaxEvents = 8;
inline constexpr int kMaxDepthLimit = 1024;

struct Slot {
    std::atomic<pid_t> tid{0}; // 0: free
    Ring ring;
    cpc_buf_t *buf = nullptr;
    std::atomic<uint64_t> dropped{0};
    // Stack bounds for frame-pointer walks; 0 until the thread's start
    // routine wrapper sets them (written before `ready` with release).
    uintptr_t stack_lo = 0;
    uintptr_t stack_hi = 0;
    std::atomic<bool> ready{false}; // stack bounds known
    // The handler is between its check of `armed` and its exit; an exec
    // waits for it to leave before emptying the rings (seq_cst on both
    // sides: set, then read armed; clear armed, then read this).
    std::atomic<bool> in_handler{false};
    bool announced = false;         // drain thread: thread message sent
    // The thread's name as it stood when the thread was set up (its own
    // prctl(PR_GET_NAME)) or as the program set it since (the interposed
    // pthread_setname_np and prctl(PR_SET_NAME)); sent by the drain thread
    // with the thread message.  Reading /proc/self/task/TID/comm instead
    // costs every thread about 0.7 ms when it ends (the kernel flushes
    // the /proc entry made for it).
    char name[16] = {};
    char sent_name[16] = {}; // drain thread: the name last sent
    pthread_t thread{};
    // TSC ticks spent in the handler, written by the handler only:
    // [0] PC + unwind + ring push, [1] entry to exit (libcpc calls included).
    uint32_t cost[2][kCostBuckets] = {};
};

struct Config {
    int channel = -1;
    bool children = true;
    CallGraph call_graph = CallGraph::dwarf;
    int max_depth = 128;
    size_t ring_bytes = 256 * 1024;
    int nevents = 0;
    char event_names[kMaxEvents][128] = {};
    uint64_t periods[kMaxEvents] = {};
};

struct State {
    Config cfg;
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    std::atomic<bool> armed{false}; // handler records samples
    Slot slots[kMaxSlots];
    // Completeness of a stack: its outermost frame is in libc (thread and
    // process start code) or at the executable's entry point.
    uintptr_t libc_lo = 0, libc_hi = 0;
    uintptr_t entry_lo = 0, entry_hi = 0;
    std::atomic<uint64_t> no_slot{0}; // samples lost for want of a free slot
    // Threads started without counters - the descriptor budget was spent
    // (fds.h), the kernel refused them (libcpc's error handler), or the
    // process runs under a seccomp filter - and the CPU time they had used
    // when they ended (CLOCK_THREAD_CPUTIME_ID; threads still running at
    // the process's end are not in it).
    std::atomic<uint64_t> threads_unsampled_no_counters{0};
    std::atomic<uint64_t> unsampled_cpu_ns_no_counters{0};
    double tsc_per_ns = 0;            // 0: handler costs are not measured
    // Costs of threads whose slots were freed (drain thread only).
    uint64_t cost_total[2][kCostBuckets] = {};
};

State &state();

// [async-signal-safe] The calling thread's slot, claimed on first use;
// null when every slot is taken.
Slot *current_slot();

// Forgets the calling thread's slot (fork child).
void forget_current_slot();

// The program named thread t (pthread_setname_np, prctl(PR_SET_NAME)).
void note_thread_name(pthread_t t, const char *name);

// [async-signal-safe] Only slots below this index have ever been claimed in
// this process (threads claim the lowest free one): loops over the slots
// stop there, and the untouched ones cost no page fault.
int slot_bound();

// The calling thread counts with its own bound set (the thread that bound
// it, and a fork child's), so its first overflow signal is a sample, not
// the one an inheriting thread receives at creation (handler.cpp).
void thread_counts_already();

} // namespace cpcprof::agent
