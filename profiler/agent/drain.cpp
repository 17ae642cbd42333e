// SPDX-License-Identifier: MIT
// The drain thread: every few milliseconds it moves the samples of every
// slot's ring to the recorder, tells it about threads and module changes,
// and frees the slots of threads that have ended.
#include "profiler/agent/drain.h"

#include "profiler/agent/channel.h"
#include "profiler/agent/module_table.h"
#include "profiler/agent/overflow_signal.h"
#include "profiler/agent/process.h"
#include "profiler/agent/signals.h"
#include "profiler/agent/state.h"

#include "profiler/protocol/protocol.h"

#include "base/clock.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace cpcprof::agent {

namespace {

// 1: the drain thread ends (a futex word).
std::atomic<int> g_stop{0};
// One consumer per ring at a time: the drain thread, or a thread about to
// exec (drain_once(true) from the exec wrappers) or end the process
// (finish_drain).  Never taken in signal context.
std::timed_mutex g_drain_lock;
// The process's last pass is done (under g_drain_lock): the drain thread
// does nothing more.
std::atomic<bool> g_finished{false};

// name: as the thread's slot has it (state.h); null or empty, the
// process's main thread is named from /proc (the entry of a process's
// main thread costs nothing at its end), any other stays unnamed.
void send_thread(pid_t tid, const char *name) {
    proto::Writer w(proto::Type::thread);
    w.put(static_cast<int32_t>(getpid()));
    w.put(static_cast<int32_t>(tid));
    if (name != nullptr && name[0] != '\0')
        w.put_string(std::string(name, strnlen(name, 16)));
    else
        w.put_string(tid == getpid() ? process_name() : std::string());
    send_message(w.finish());
}

bool thread_alive(pid_t tid) {
    return syscall(SYS_tgkill, getpid(), tid, 0) == 0 || errno != ESRCH;
}

// Moves one slot's samples into messages of at most kMaxMessage bytes.
void drain_slot(Slot &slot, uint64_t *taken, uint64_t *dropped) {
    proto::Writer w(proto::Type::samples);
    uint32_t count = 0;
    auto start = [&] {
        w = proto::Writer(proto::Type::samples);
        w.put(static_cast<int32_t>(getpid()));
        w.put(uint32_t(0)); // count, patched before sending
        count = 0;
    };
    auto flush = [&] {
        if (count == 0)
            return;
        std::vector<char> msg = w.finish();
        std::memcpy(msg.data() + sizeof(proto::Header) + sizeof(int32_t), &count, sizeof count);
        send_message(msg);
        *taken += count;
    };
    start();
    slot.ring.consume([&](const char *p, size_t n) {
        if (w.size() + n > proto::kMaxMessage) {
            flush();
            start();
        }
        note_drained_sample(p, n);
        w.put_bytes(p, n);
        ++count;
    });
    flush();
    uint64_t d = slot.dropped.exchange(0, std::memory_order_relaxed);
    *dropped += d;
    *taken += d;
}

void fold_costs(State &s, Slot &slot) {
    for (int m = 0; m < 2; ++m)
        for (int b = 0; b < kCostBuckets; ++b) {
            s.cost_total[m][b] += slot.cost[m][b];
            slot.cost[m][b] = 0;
        }
}

void send_stats(State &s) {
    proto::Writer w(proto::Type::stats);
    w.put(static_cast<int32_t>(getpid()));
    w.put(static_cast<uint32_t>(kCostBuckets));
    w.put(static_cast<uint32_t>(kCostBucketNs));
    for (int m = 0; m < 2; ++m)
        for (int b = 0; b < kCostBuckets; ++b)
            w.put(static_cast<uint32_t>(s.cost_total[m][b]));
    send_message(w.finish());
}

// Sends the thread's name when it is first known (the thread's set-up
// writes it: a thread may take its slot in the handler before that), or
// when the thread goes (last) unnamed, and again whenever the program
// renames it (the recorder renames the thread).
void announce(Slot &slot, pid_t tid, bool last) {
    char name[16];
    std::memcpy(name, slot.name, sizeof name); // a rename may be under way
    name[15] = '\0';
    bool named = name[0] != '\0';
    if (slot.announced ? !named || std::strcmp(name, slot.sent_name) == 0 : !named && !last)
        return;
    send_thread(tid, name);
    std::memcpy(slot.sent_name, name, sizeof name);
    slot.announced = true;
}

} // namespace

void drain_once(bool final) {
    std::lock_guard<std::timed_mutex> g(g_drain_lock);
    drain_locked(final);
}

void drain_locked(bool final) {
    State &s = state();
    uint64_t taken = 0, dropped = 0;
    report_signal_findings();
    send_modules(false);
    for (int i = 0; i < slot_bound(); ++i) {
        Slot &slot = s.slots[i];
        pid_t tid = slot.tid.load(std::memory_order_acquire);
        if (tid == 0)
            continue;
        bool alive = final || thread_alive(tid);
        if (!final && alive && slot.pages_pending.exchange(false, std::memory_order_relaxed))
            slot.ring.prefault(); // the handler may be writing: contents stay
        announce(slot, tid, final || !alive);
        drain_slot(slot, &taken, &dropped);
        if (!alive) {
            drain_slot(slot, &taken, &dropped); // anything published meanwhile
            slot.ring.reset();
            fold_costs(s, slot);
            slot.stack_lo = slot.stack_hi = 0;
            slot.ready.store(false, std::memory_order_relaxed);
            slot.pages_pending.store(false, std::memory_order_relaxed);
            slot.announced = false;
            slot.name[0] = slot.sent_name[0] = '\0';
            slot.tid.store(0, std::memory_order_release);
        }
    }
    rescan_modules_if_unknown(final);
    if (final && s.tsc_per_ns > 0) {
        for (int i = 0; i < slot_bound(); ++i)
            if (s.slots[i].tid.load(std::memory_order_acquire) != 0)
                fold_costs(s, s.slots[i]);
        send_stats(s);
        // Sent: an exec that fails and a later exit send only what
        // follows.
        std::memset(s.cost_total, 0, sizeof s.cost_total);
    }
    // Overflows of threads that found no slot were taken and not stored.
    uint64_t no_slot = s.no_slot.exchange(0, std::memory_order_relaxed);
    taken += no_slot;
    dropped += no_slot;
    // CPU time of threads without counters: what was added since the last
    // account (the figure itself keeps growing; a fork child restarts it).
    static uint64_t unsampled_sent = 0;
    uint64_t unsampled_total = s.unsampled_cpu_ns_no_counters.load(std::memory_order_relaxed);
    if (unsampled_total < unsampled_sent)
        unsampled_sent = 0;
    uint64_t unsampled = unsampled_total - unsampled_sent;
    unsampled_sent = unsampled_total;
    if (taken != 0 || dropped != 0 || unsampled != 0) {
        proto::Writer w(proto::Type::account);
        w.put(static_cast<int32_t>(getpid()));
        w.put(taken);
        w.put(dropped);
        w.put(unsampled);
        send_message(w.finish());
    }
}

void send_thread_now(pid_t tid) {
    send_thread(tid, nullptr);
}

void send_modules_now() {
    send_modules(true);
}

namespace {

// How often the dispositions of the profiler's signals are checked
// (overflow_signal.h): often while runtimes and fork children typically
// take or reset every signal, soon after the start.
constexpr int64_t kWatchFastNs = 250 * 1000, kWatchFastForNs = 25 * 1000 * 1000;
constexpr int64_t kWatchNs = 5 * 1000 * 1000, kDrainNs = 10 * 1000 * 1000;

void *drain_main(void *) {
    // Named by itself (prctl): naming it from the starting thread goes
    // through /proc/self/task/TID/comm, and that entry of an ended thread
    // costs its process's reaper about a millisecond (the kernel walks it
    // when it flushes the process's /proc entries).
    pthread_setname_np(pthread_self(), proto::kAgentThreadName);
    // The drain thread is not profiled: it starts before the set is bound.
    int64_t start = base::monotonic_ns(), last_drain = start;
    while (!g_stop.load(std::memory_order_acquire)) {
        int64_t now = base::monotonic_ns();
        int64_t step = now - start < kWatchFastForNs ? kWatchFastNs : kWatchNs;
        timespec ts{0, static_cast<long>(step)};
        syscall(SYS_futex, &g_stop, FUTEX_WAIT_PRIVATE, 0, &ts, nullptr, 0);
        if (g_stop.load(std::memory_order_acquire))
            break; // the process's end drains last
        std::lock_guard<std::timed_mutex> g(g_drain_lock);
        if (g_finished.load(std::memory_order_relaxed))
            break;
        watch_overflow_signals();
        now = base::monotonic_ns();
        if (now - last_drain >= kDrainNs) {
            drain_locked(false);
            last_drain = now;
        }
    }
    return nullptr;
}

} // namespace

void start_drain() {
    AgentCode mine;
    g_stop.store(0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); // no signal of the target's lands here
    pthread_t thread;
    if (pthread_create(&thread, nullptr, drain_main, nullptr) == 0)
        pthread_detach(thread);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

bool finish_drain() {
    // Not woken and not waited for: the thread leaves at its next wake-up
    // or dies with the process (joining it cost every process's end a
    // wake-up of another CPU and a thread's exit, 50-60 us in a VM).  Its
    // pass under way, if any, ends first; bounded, for one that is stuck
    // (a recorder that stopped reading).
    g_stop.store(1, std::memory_order_release);
    timespec deadline{};
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += kStopWaitSeconds;
    if (pthread_mutex_clocklock(g_drain_lock.native_handle(), CLOCK_MONOTONIC, &deadline) != 0)
        return false;
    std::lock_guard<std::timed_mutex> g(g_drain_lock, std::adopt_lock);
    drain_locked(true);
    g_finished.store(true, std::memory_order_relaxed);
    return true;
}

// The parent's drain thread may have held the lock at the fork.
void drain_forget_thread() {
    g_finished.store(false, std::memory_order_relaxed);
    new (&g_drain_lock) std::timed_mutex;
}

} // namespace cpcprof::agent
