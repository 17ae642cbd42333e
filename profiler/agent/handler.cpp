// SPDX-License-Identifier: MIT
// Signal context: no malloc, no locks, no stdio; errno preserved; bounded.
#include "profiler/agent/handler.h"

#include "profiler/agent/seccomp.h"
#include "profiler/agent/signals.h"
#include "profiler/agent/state.h"
#include "profiler/agent/unwind.h"

#include "profiler/protocol/protocol.h"

#include "base/clock.h"

#include <cerrno>
#include <cstring>
#include <sched.h>
#include <time.h>
#include <ucontext.h>

namespace cpcprof::agent {

namespace {

uint64_t tsc() {
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

void account_cost(const State &s, Slot *slot, int which, uint64_t ticks) {
    if (s.tsc_per_ns <= 0)
        return;
    uint64_t b = static_cast<uint64_t>(double(ticks) / s.tsc_per_ns) / kCostBucketNs;
    slot->cost[which][b < kCostBuckets ? b : kCostBuckets - 1]++;
}

int walk(const State &s, Slot *slot, siginfo_t *si, void *ucv, uint64_t *frames, int max,
         bool *complete) {
    auto pc = reinterpret_cast<uintptr_t>(si->si_addr);
    // Until the thread's start wrapper has found its stack bounds, no frame
    // can be read safely: record the PC alone.
    if (s.cfg.call_graph == CallGraph::none || !slot->ready.load(std::memory_order_acquire)) {
        frames[0] = pc;
        *complete = false;
        return 1;
    }
    if (s.cfg.call_graph == CallGraph::fp)
        return unwind_fp(static_cast<ucontext_t *>(ucv), slot->stack_lo, slot->stack_hi, frames,
                         max, complete);
    Scratch copy;
    // Not once the program installed a filter of its own (seccomp.h).
    if (s.cfg.stack_copies && !seccomp_known())
        copy = {slot->stack_copy, sizeof slot->stack_copy};
    return unwind_dwarf(static_cast<ucontext_t *>(ucv), slot->stack_lo, slot->stack_hi, frames, max,
                        complete, copy);
}

// Writes one sample into the ring.  The record is reserved for the
// deepest stack and the unwinder writes its frames straight into it: the
// handler keeps no frame array of its own, so that its stack use stays
// small on whatever stack the signal runs (see handler.h).  frames_of null:
// a sample of the PC alone (pc), its stack unknown.
void record(State &s, Slot *slot, siginfo_t *si, void *uc, const uint64_t *values, int64_t when,
            uint64_t pc) {
    int nv = s.cfg.nevents;
    int most = si != nullptr ? s.cfg.max_depth : 1;
    size_t head = sizeof(proto::SampleRecord) + nv * sizeof(uint64_t);
    char *out = static_cast<char *>(slot->ring.reserve(head + most * sizeof(uint64_t)));
    if (out == nullptr) {
        slot->dropped.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    // 8-byte aligned: the ring's records are, and head is a multiple of 8.
    auto *frames = reinterpret_cast<uint64_t *>(out + head);
    bool complete = false;
    int depth = 1;
    if (si != nullptr) {
        // An overflow in the kernel: its frames first, from the kernel's
        // record (the signal's context holds where the thread returns to
        // user mode, whence the user's walk starts).
        int nk = 0;
        if (s.cfg.kernel && most > 1) {
            nk = cpc_set_kernel_frames(s.cpc, s.set, frames, most - 1);
            nk = nk < 0 ? 0 : nk;
        }
        depth = nk + walk(s, slot, si, uc, frames + nk, most - nk, &complete);
    } else {
        frames[0] = pc;
    }
    proto::SampleRecord r{};
    r.time_ns = when;
    r.tid = slot->tid.load(std::memory_order_relaxed);
    // glibc reads it from the thread's rseq area (or the vDSO): no lock,
    // no system call; -1 where it cannot say.
    r.cpu = sched_getcpu();
    r.depth = static_cast<uint16_t>(depth);
    r.complete = complete;
    r.nvalues = static_cast<uint8_t>(nv);
    std::memcpy(out, &r, sizeof r);
    std::memcpy(out + sizeof r, values, nv * sizeof(uint64_t));
    slot->ring.commit(head + depth * sizeof(uint64_t));
}

// Overflows whose signals merged into this one (libcpc.h,
// cpc_set_merged_overflows): each is a sample of its own, taken by the
// kernel at its own PC; its stack is gone, so it is stored with that PC
// alone, marked incomplete.  Those whose PC the kernel did not keep are
// counted as dropped.  The other events' counts since the last restart
// stay with the signal's own sample.  Not inlined: its arrays are off the
// stack before the signal's own sample is unwound, the deepest path.
__attribute__((noinline)) void record_merged(State &s, Slot *slot, int64_t when) {
    uint64_t pcs[kMaxMerged];
    int npcs = 0;
    int64_t n = cpc_set_merged_overflows(s.cpc, s.set, pcs, kMaxMerged, &npcs);
    if (n <= 0)
        return;
    uint64_t values[kMaxEvents] = {};
    values[0] = s.cfg.periods[0];
    for (int i = 0; i < npcs; ++i)
        record(s, slot, nullptr, nullptr, values, when, pcs[i]);
    if (static_cast<uint64_t>(n) > static_cast<uint64_t>(npcs))
        slot->dropped.fetch_add(static_cast<uint64_t>(n) - npcs, std::memory_order_relaxed);
}

// Whether this thread has had its first SIGEMT.  A thread that inherits
// the set receives one at once, counters frozen, before its start routine
// runs (cpc_bind_curlwp(3CPC)); the man page's way to tell it from an
// overflow is cpc_set_sample's UINT64_MAX, a system call that a sampling
// set of one request does not otherwise need.  A new thread has this at
// false; the agent sets it for the threads that bound the set themselves.
__attribute__((tls_model("initial-exec"))) thread_local bool tls_started = false;

} // namespace

void thread_counts_already() {
    tls_started = true;
}

__attribute__((tls_model("initial-exec"))) thread_local bool tls_releasing_blocked = false;

void on_overflow(int sig, siginfo_t *si, void *uc) {
    int saved = errno;
    AgentCode mine; // mask changes made from here are not the program's
    uint64_t t_entry = tsc();
    State &s = state();
    if (si->si_code != EMT_CPCOVF || s.set == nullptr) {
        forward_to_program(sig, si, uc); // sent by someone else
        errno = saved;
        return;
    }
    bool first = !tls_started;
    tls_started = true;
    Slot *slot = current_slot();
    if (slot == nullptr) {
        s.no_slot.fetch_add(1, std::memory_order_relaxed);
        cpc_set_restart(s.cpc, s.set);
        errno = saved;
        return;
    }
    slot->in_handler.store(true, std::memory_order_seq_cst);
    if (!s.armed.load(std::memory_order_seq_cst)) {
        cpc_set_restart(s.cpc, s.set);
        slot->in_handler.store(false, std::memory_order_release);
        errno = saved;
        return;
    }
    uint64_t values[kMaxEvents] = {};
    int64_t when = 0;
    bool sample;
    if (s.cfg.nevents > 1) {
        // The other requests' values: a read of the counters.
        if (cpc_set_sample(s.cpc, s.set, slot->buf) == 0) {
            for (int i = 0; i < s.cfg.nevents; ++i)
                cpc_buf_get(s.cpc, slot->buf, i, &values[i]);
        }
        when = cpc_buf_hrtime(s.cpc, slot->buf);
        // A thread that inherits the set gets SIGEMT at once with the
        // sampling counter at UINT64_MAX (cpc_bind_curlwp(3CPC)): not a
        // sample.
        sample = values[0] != UINT64_MAX;
    } else {
        when = base::monotonic_ns(); // the vDSO: no system call
        sample = !first;
    }
    if (sample) {
        // The sampling request stands for its period; the others count
        // from 0 since the last restart, i.e. over this period.
        values[0] = s.cfg.periods[0];
        record_merged(s, slot, when);
        uint64_t t0 = tsc();
        if (tls_releasing_blocked)
            slot->dropped.fetch_add(1, std::memory_order_relaxed);
        else
            record(s, slot, si, uc, values, when, 0);
        account_cost(s, slot, 0, tsc() - t0);
        cpc_set_restart(s.cpc, s.set);
        account_cost(s, slot, 1, tsc() - t_entry);
    } else {
        cpc_set_restart(s.cpc, s.set);
    }
    slot->in_handler.store(false, std::memory_order_release);
    errno = saved;
}

} // namespace cpcprof::agent
