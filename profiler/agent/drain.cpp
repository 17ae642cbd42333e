// The drain thread: every few milliseconds it moves the samples of every
// slot's ring to the recorder, tells it about threads and module changes,
// and frees the slots of threads that have ended.
#include "drain.h"

#include "cfi_cache.h"
#include "cfi_tables.h"
#include "channel.h"
#include "module_scan.h"
#include "overflow_signal.h"
#include "process.h"
#include "signals.h"
#include "state.h"

#include "../common/protocol.h"

#include "base/clock.h"

#include <elf.h>
#include <link.h>
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

// 1: the drain thread ends.  A futex word: stop_drain wakes the thread
// from its 10 ms wait at once, so that a process's exit does not wait for
// the rest of that period (5 ms on average, the bulk of a short
// program's cost).
std::atomic<int> g_stop{0};
// One consumer per ring at a time: the drain thread, or a thread about to
// exec (drain_once(true) from the exec wrappers).  Never taken in signal
// context.
std::mutex g_drain_lock;
pthread_t g_thread;
bool g_running = false;
unsigned long long g_adds = 0, g_subs = 0; // dl_iterate_phdr counters last seen

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

std::string exe_path() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, n) : std::string();
}

int count_changes(dl_phdr_info *info, size_t size, void *arg) {
    if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        auto *p = static_cast<unsigned long long *>(arg);
        p[0] = info->dlpi_adds;
        p[1] = info->dlpi_subs;
    }
    return 1; // the counters are the same in every entry
}

// Code mapped by mmap or mprotect (a second mapping of a file, JIT code)
// changes no loader counter: the drain sees it in the samples, as a frame
// in no known module (g_known), and rescans /proc/self/maps.  A scan
// costs ~50 us of CPU for a small program and ~7 ms for 10 000
// executable mappings (tests/record/test_module_scan.cpp prints it), so
// the next rescan waits at least 50 times the last scan's cost (scans take
// at most 2 % of a CPU), and a rescan that finds nothing new (a corrupt
// return address that no mapping holds) doubles the wait, up to 2 s.
constexpr int64_t kRescanMinNs = 20 * 1000 * 1000, kRescanMaxNs = 2000 * 1000 * 1000;
constexpr int64_t kScanCostFactor = 50;
KnownRanges g_known;
std::vector<ModuleEntry> g_sent; // the table last sent
bool g_unknown_seen = false;     // a drained frame lay outside g_known
int64_t g_last_scan_ns = 0, g_rescan_wait_ns = kRescanMinNs;

int64_t thread_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool same_entry(const ModuleEntry &a, const ModuleEntry &b) {
    return a.start == b.start && a.end == b.end && a.file_offset == b.file_offset &&
           a.path == b.path && a.build_id == b.build_id;
}

void send_table(const std::vector<ModuleEntry> &modules) {
    proto::Writer w(proto::Type::modules);
    w.put(static_cast<int32_t>(getpid()));
    w.put(base::monotonic_ns());
    size_t count_at = w.size();
    w.put(uint32_t(0)); // count, patched below
    uint32_t count = 0;
    for (const ModuleEntry &m : modules) {
        // One message holds the whole table; what would not fit is left
        // out (the loader's modules come first).
        if (w.size() + 3 * sizeof(uint64_t) + 8 + m.path.size() + m.build_id.size() >
            proto::kMaxMessage)
            break;
        w.put(m.start);
        w.put(m.end);
        w.put(m.file_offset);
        w.put_string(m.path);
        w.put_string(m.build_id);
        ++count;
    }
    std::vector<char> msg = w.finish();
    std::memcpy(msg.data() + count_at, &count, sizeof count);
    send_message(msg);
}

// force: send the table even if it did not change (start, fork).
// rescan: the loader's counters did not move, but a frame lay outside
// every known mapping.
void send_modules_if_changed(bool force, bool rescan = false) {
    unsigned long long c[2] = {0, 0};
    dl_iterate_phdr(count_changes, c);
    bool loader_changed = c[0] != g_adds || c[1] != g_subs;
    if (!force && !loader_changed && !rescan)
        return;
    g_adds = c[0];
    g_subs = c[1];
    if (force || loader_changed)
        refresh_cfi();
    // The process's first scan, at its start, is the loader's alone: the
    // program has mapped nothing of its own yet, and every process's start
    // is spared reading /proc/self/maps.
    bool first = g_last_scan_ns == 0;
    int64_t cpu0 = thread_cpu_ns();
    std::vector<ModuleEntry> modules = scan_modules(exe_path(), !first);
    int64_t cost = thread_cpu_ns() - cpu0;
    g_last_scan_ns = base::monotonic_ns();
    g_unknown_seen = false;
    bool same = modules.size() == g_sent.size() &&
                std::equal(modules.begin(), modules.end(), g_sent.begin(), same_entry);
    if (rescan && same)
        g_rescan_wait_ns = std::min(2 * g_rescan_wait_ns, kRescanMaxNs);
    else
        g_rescan_wait_ns = kRescanMinNs;
    g_rescan_wait_ns = std::max(g_rescan_wait_ns, kScanCostFactor * cost);
    if (same && !force)
        return;
    g_known = KnownRanges(modules);
    send_table(modules);
    g_sent = std::move(modules);
}

// After a drain pass: rescans when a frame lay outside every known
// mapping and the wait since the last scan has passed (at the process's
// end, final, at once: the mappings are gone after it).
void rescan_if_unknown(bool final) {
    if (!g_unknown_seen)
        return;
    if (!final && base::monotonic_ns() - g_last_scan_ns < g_rescan_wait_ns)
        return;
    send_modules_if_changed(false, true);
}

// The frames of one ring record (SampleRecord, values, frames).
void check_frames(const char *p, size_t n) {
    if (g_unknown_seen || n < sizeof(proto::SampleRecord))
        return;
    proto::SampleRecord r;
    std::memcpy(&r, p, sizeof r);
    size_t first = sizeof r + r.nvalues * sizeof(uint64_t);
    for (size_t i = 0; i < r.depth && first + (i + 1) * sizeof(uint64_t) <= n; ++i) {
        uint64_t pc;
        std::memcpy(&pc, p + first + i * sizeof pc, sizeof pc);
        if (!g_known.covers(pc)) {
            g_unknown_seen = true;
            return;
        }
    }
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
        check_frames(p, n);
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
    std::lock_guard<std::mutex> g(g_drain_lock);
    State &s = state();
    uint64_t taken = 0, dropped = 0;
    report_signal_findings();
    send_modules_if_changed(false);
    for (int i = 0; i < slot_bound(); ++i) {
        Slot &slot = s.slots[i];
        pid_t tid = slot.tid.load(std::memory_order_acquire);
        if (tid == 0)
            continue;
        bool alive = final || thread_alive(tid);
        announce(slot, tid, final || !alive);
        drain_slot(slot, &taken, &dropped);
        if (!alive) {
            drain_slot(slot, &taken, &dropped); // anything published meanwhile
            slot.ring.reset();
            fold_costs(s, slot);
            slot.stack_lo = slot.stack_hi = 0;
            slot.ready.store(false, std::memory_order_relaxed);
            slot.announced = false;
            slot.name[0] = slot.sent_name[0] = '\0';
            slot.tid.store(0, std::memory_order_release);
        }
    }
    rescan_if_unknown(final);
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
    send_modules_if_changed(true);
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
    pthread_setname_np(pthread_self(), "cpcprof-drain");
    // The drain thread is not profiled: it starts before the set is bound.
    int64_t start = base::monotonic_ns(), last_drain = start;
    while (!g_stop.load(std::memory_order_acquire)) {
        int64_t now = base::monotonic_ns();
        int64_t step = now - start < kWatchFastForNs ? kWatchFastNs : kWatchNs;
        timespec ts{0, static_cast<long>(step)};
        syscall(SYS_futex, &g_stop, FUTEX_WAIT_PRIVATE, 0, &ts, nullptr, 0);
        if (g_stop.load(std::memory_order_acquire))
            break; // the caller of stop_drain drains last
        watch_overflow_signals();
        now = base::monotonic_ns();
        if (now - last_drain >= kDrainNs) {
            drain_once(false);
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
    g_running = pthread_create(&g_thread, nullptr, drain_main, nullptr) == 0;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void stop_drain() {
    if (!g_running)
        return;
    g_stop.store(1, std::memory_order_release);
    syscall(SYS_futex, &g_stop, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    pthread_join(g_thread, nullptr);
    g_running = false;
}

// The parent's drain thread may have held the lock at the fork.
void drain_forget_thread() {
    g_running = false;
    new (&g_drain_lock) std::mutex;
}

} // namespace cpcprof::agent
