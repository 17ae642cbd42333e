// SPDX-License-Identifier: MIT
// The timer backend (counting_timer.h): libcpc where perf_event_open is
// refused.  ctest runs this binary three ways: with CPC_BACKEND=timer
// (forced), under a seccomp filter that answers EPERM to perf_event_open
// (reached as in a container), and as an unprivileged user where
// perf_event_paranoid refuses.  The tests are the overflow, inheritance
// and counting contract of test_overflow.cpp, test_inherit.cpp and
// test_bind.cpp on the events this backend serves: the clocks, which the
// kernel checks at its tick (and only at a tick that finds the thread
// running: on a busy machine some come much later), so counts of signals
// are judged against the thread's own CPU time when it stops at a signal,
// which brings every period due.
#include "libcpc/src/machine.h"
#include "tests/libcpc/helpers.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

constexpr uint64_t kPeriod = 1000000; // 1 ms of CPU time

cpc_t *g_cpc;
cpc_set_t *g_set;
cpc_buf_t *g_buf;
std::atomic<int> g_signals, g_bad_code, g_outside, g_addr_mismatch;
std::atomic<bool> g_restart{true};
std::atomic<uint64_t> g_new_preset{0};
std::atomic<uint64_t> g_max_value_at_signal{0};
std::atomic<uint64_t> g_merged{0};
std::atomic<int> g_stop_after{0};
// Read by timer_spin as a plain load (no call, even unoptimized).
volatile sig_atomic_t g_stop = 0;

uint64_t thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000 + uint64_t(ts.tv_nsec);
}

// Pure computation until the handler says stop: every overflow lands here.
// Not instrumented: AddressSanitizer's checks are calls into its runtime.
extern "C" __attribute__((noinline, no_sanitize_address)) void timer_spin() {
    volatile unsigned long x = 0;
    while (!g_stop)
        x = x + 1;
}

void on_emt(int sig, siginfo_t *si, void *ucv) {
    if (sig != SIGEMT || si->si_code != EMT_CPCOVF) {
        ++g_bad_code;
        return;
    }
    int n = ++g_signals;
    int npcs = 0;
    if (int64_t m = cpc_set_merged_overflows(g_cpc, g_set, nullptr, 0, &npcs); m > 0)
        g_merged += uint64_t(m);
    auto *uc = static_cast<ucontext_t *>(ucv);
    if (si->si_addr != reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]))
        ++g_addr_mismatch;
    Dl_info info;
    if (dladdr(si->si_addr, &info) == 0 || info.dli_sname == nullptr ||
        std::strcmp(info.dli_sname, "timer_spin") != 0)
        ++g_outside;
    if (cpc_set_sample(g_cpc, g_set, g_buf) == 0) {
        uint64_t v;
        cpc_buf_get(g_cpc, g_buf, 0, &v);
        if (v > g_max_value_at_signal)
            g_max_value_at_signal = v;
    }
    if (uint64_t p = g_new_preset.exchange(0))
        cpc_request_preset(g_cpc, 0, p);
    if (g_stop_after > 0 && n >= g_stop_after)
        g_stop = 1;
    if (g_restart)
        cpc_set_restart(g_cpc, g_set);
}

void install_emt(void (*h)(int, siginfo_t *, void *)) {
    cpctest::install_sigemt(h);
}

// Spins in timer_spin until n overflows were signalled, or a deadline of
// CPU time passes (a broken backend must not hang the test).
void spin_until_signals(int n) {
    g_stop = 0;
    g_stop_after = n;
    // The handler stops the spin; a watchdog thread bounds it (30 s).
    std::atomic<bool> done{false};
    pthread_t dog;
    auto watch = [](void *p) -> void * {
        auto *d = static_cast<std::atomic<bool> *>(p);
        for (int i = 0; i < 600 && !d->load(); ++i)
            usleep(50000);
        g_stop = 1;
        return nullptr;
    };
    pthread_create(&dog, nullptr, watch, &done);
    timer_spin();
    done = true;
    pthread_join(dog, nullptr);
    g_stop_after = 0;
}

struct TimerOverflow : ::testing::Test {
    void SetUp() override {
        g_cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(g_cpc, nullptr) << std::strerror(errno);
        ASSERT_EQ(cpc::host_machine().backend, cpc::Backend::timer)
            << "this binary runs with the timer backend (CPC_BACKEND=timer, or perf_event_open "
               "refused)";
        g_set = cpc_set_create(g_cpc);
        g_signals = g_bad_code = g_outside = g_addr_mismatch = 0;
        g_max_value_at_signal = 0;
        g_merged = 0;
        g_restart = true;
        g_new_preset = 0;
        install_emt(on_emt);
    }
    void TearDown() override {
        cpc_close(g_cpc);
        signal(SIGEMT, SIG_DFL);
    }
    void bind(uint64_t preset, const char *event = "cpu-clock", uint_t flags = 0) {
        ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, event, preset,
                                      CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
                  0);
        g_buf = cpc_buf_create(g_cpc, g_set);
        ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, flags), 0) << std::strerror(errno);
    }
    uint64_t value(int index = 0) {
        cpc_buf_t *b = cpc_buf_create(g_cpc, g_set);
        EXPECT_EQ(cpc_set_sample(g_cpc, g_set, b), 0);
        uint64_t v = 0;
        cpc_buf_get(g_cpc, b, index, &v);
        return v;
    }
};

} // namespace

TEST(TimerBackend, DescribesItselfAndWhatItServes) {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    ASSERT_NE(cpc, nullptr) << std::strerror(errno);
    std::string cci = cpc_cciname(cpc);
    EXPECT_NE(cci.find("POSIX CPU timers"), std::string::npos) << cci;
    EXPECT_TRUE(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT);
    std::vector<std::string> events;
    cpc_walk_events_all(cpc, &events, [](void *arg, const char *e) {
        static_cast<std::vector<std::string> *>(arg)->push_back(e);
    });
    auto has = [&](const char *e) {
        return std::find(events.begin(), events.end(), e) != events.end();
    };
    for (const char *e : {"cpu-clock", "task-clock", "page-faults", "minor-faults", "major-faults",
                          "context-switches"})
        EXPECT_TRUE(has(e)) << e;
    EXPECT_FALSE(has("cycles"));
    EXPECT_FALSE(has("instructions"));
    cpc_close(cpc);
}

// A hardware event asked for gets what would allow it, not "not available".
TEST(TimerBackend, HardwareEventNamesWhatWouldAllowIt) {
    cpctest::ErrorLog::clear();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    ASSERT_NE(cpc, nullptr);
    cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
    cpc_set_t *set = cpc_set_create(cpc);
    EXPECT_EQ(cpc_set_add_request(cpc, set, "cycles", 0, CPC_COUNT_USER, 0, nullptr), -1);
    EXPECT_EQ(errno, EINVAL);
    ASSERT_FALSE(cpctest::ErrorLog::messages.empty());
    const std::string &m = cpctest::ErrorLog::messages.back();
    EXPECT_NE(m.find("'cycles' needs perf_event_open"), std::string::npos) << m;
    const char *forced = std::getenv("CPC_BACKEND");
    if (forced != nullptr && std::string(forced) == "timer")
        EXPECT_NE(m.find("CPC_BACKEND"), std::string::npos) << m;
    else
        EXPECT_TRUE(m.find("CAP_PERFMON") != std::string::npos) << m;
    cpc_close(cpc);
}

TEST(TimerBackend, CountsCpuTimeFaultsAndSwitches) {
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    ASSERT_NE(cpc, nullptr);
    cpc_set_t *set = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "task-clock", 1000, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 1);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "context-switches", 0, CPC_COUNT_USER, 0, nullptr), 2);
    cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0) << std::strerror(errno);
    ASSERT_EQ(cpc_set_sample(cpc, set, a), 0);
    uint64_t cpu0 = thread_cpu_ns();
    cpctest::spin_cpu_ms(50);
    cpctest::touch_pages(300);
    for (int i = 0; i < 5; ++i)
        usleep(1000); // each sleep switches out
    uint64_t cpu1 = thread_cpu_ns();
    ASSERT_EQ(cpc_set_sample(cpc, set, b), 0);
    uint64_t v0[3], v1[3];
    for (int i = 0; i < 3; ++i) {
        cpc_buf_get(cpc, a, i, &v0[i]);
        cpc_buf_get(cpc, b, i, &v1[i]);
    }
    EXPECT_GE(v0[0], 1000u);
    EXPECT_GE(v1[0] - v0[0], cpu1 - cpu0) << "task-clock counted less than the thread ran";
    EXPECT_LT(v1[0] - v0[0], cpu1 - cpu0 + 1000000) << "task-clock counted another's time";
    EXPECT_GE(v1[1] - v0[1], 300u);
    EXPECT_LT(v1[1] - v0[1], 400u);
    EXPECT_GE(v1[2] - v0[2], 5u);
    EXPECT_GT(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
    cpc_close(cpc);
}

TEST(TimerBackend, OverflowOfACountIsRefusedWithTheReason) {
    cpctest::ErrorLog::clear();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
    cpc_set_t *set = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", UINT64_MAX - 99,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    EXPECT_EQ(cpc_bind_curlwp(cpc, set, 0), -1);
    EXPECT_EQ(errno, ENOTSUP);
    ASSERT_FALSE(cpctest::ErrorLog::messages.empty());
    EXPECT_NE(cpctest::ErrorLog::messages.back().find("only cpu-clock and task-clock"),
              std::string::npos)
        << cpctest::ErrorLog::messages.back();
    cpc_close(cpc);
}

TEST(TimerBackend, CpuBindingIsRefusedWithTheReason) {
    cpctest::ErrorLog::clear();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
    cpc_set_t *set = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    EXPECT_EQ(cpc_bind_cpu(cpc, 0, set, 0), -1);
    EXPECT_EQ(errno, EACCES);
    ASSERT_FALSE(cpctest::ErrorLog::messages.empty());
    EXPECT_NE(cpctest::ErrorLog::messages.back().find("counting on a CPU needs perf_event_open"),
              std::string::npos)
        << cpctest::ErrorLog::messages.back();
    cpc_close(cpc);
}

// Every period of CPU time is an overflow, each its own SIGEMT at a PC of
// the interrupted code, the value read in the handler just wrapped.
TEST_F(TimerOverflow, EveryPeriodIsASignal) {
    uint64_t cpu0 = thread_cpu_ns();
    bind(UINT64_MAX - (kPeriod - 1));
    spin_until_signals(300);
    uint64_t spent = thread_cpu_ns() - cpu0;
    cpc_unbind(g_cpc, g_set);
    // Overflows merged into a signal (a busy machine's late tick) count.
    int n = g_signals + int(g_merged.load());
    EXPECT_GE(n, 300);
    // The spin stopped at a signal, which brought every period due: one
    // signal per period of the CPU time spent.
    EXPECT_NEAR(double(n), std::floor(double(spent) / double(kPeriod)), 1.0)
        << spent << " ns spent";
    EXPECT_EQ(g_bad_code.load(), 0);
    EXPECT_EQ(g_outside.load(), 0) << "si_addr outside the spinning function";
    EXPECT_EQ(g_addr_mismatch.load(), 0) << "si_addr differs from the ucontext PC";
    EXPECT_EQ(g_max_value_at_signal.load() % kPeriod, 0u)
        << "the value of the overflow instant is the wrap (or whole periods past it, merged)";
}

TEST_F(TimerOverflow, StaysFrozenUntilRestart) {
    g_restart = false;
    bind(UINT64_MAX - (kPeriod - 1));
    spin_until_signals(1);
    cpctest::spin_cpu_ms(30);
    EXPECT_EQ(g_signals.load(), 1) << "one SIGEMT per overflow, none while frozen";
    uint64_t frozen = value();
    // The wrap, or whole periods past it where overflows merged (a busy
    // machine's late tick).
    EXPECT_EQ(frozen % kPeriod, 0u) << frozen;
    cpctest::spin_cpu_ms(5);
    EXPECT_EQ(value(), frozen) << "the value moved while frozen";
    ASSERT_EQ(cpc_set_restart(g_cpc, g_set), 0);
    EXPECT_GE(value(), UINT64_MAX - (kPeriod - 1));
    spin_until_signals(2);
    EXPECT_EQ(g_signals.load(), 2);
}

TEST_F(TimerOverflow, WholeSetFreezes) {
    g_restart = false;
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "cpu-clock", UINT64_MAX - (kPeriod - 1),
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "minor-faults", 0, CPC_COUNT_USER, 0, nullptr), 1);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "task-clock", 0, CPC_COUNT_USER, 0, nullptr), 2);
    g_buf = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    spin_until_signals(1);
    uint64_t faults = value(1), clock = value(2);
    cpctest::touch_pages(500);
    cpctest::spin_cpu_ms(20);
    EXPECT_EQ(value(1), faults) << "the other request kept counting after the overflow";
    EXPECT_EQ(value(2), clock) << "the other clock kept counting after the overflow";
    EXPECT_EQ(clock, kPeriod) << "the clocks' values are those of the overflow instant";
}

TEST_F(TimerOverflow, RequestPresetInHandlerSetsTheNextPeriod) {
    constexpr uint64_t kLong = 20 * kPeriod;
    g_new_preset = UINT64_MAX - (kLong - 1);
    uint64_t cpu0 = thread_cpu_ns();
    bind(UINT64_MAX - (kPeriod - 1));
    spin_until_signals(11);
    uint64_t spent = thread_cpu_ns() - cpu0;
    cpc_unbind(g_cpc, g_set);
    // One short period, then long ones: every one due when the spin
    // stopped (at a signal) was signalled.
    ASSERT_GE(spent, kPeriod);
    EXPECT_NEAR(double(g_signals.load()), 1 + std::floor(double(spent - kPeriod) / double(kLong)),
                1.0)
        << spent << " ns spent";
}

TEST_F(TimerOverflow, PresetFarFromOverflowDoesNotSignal) {
    bind(1000000);
    cpctest::spin_cpu_ms(50);
    EXPECT_EQ(g_signals.load(), 0);
    EXPECT_GE(value(), 1000000u + 50 * 1000000u);
}

TEST_F(TimerOverflow, BlockedSignalStaysPending) {
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGEMT);
    pthread_sigmask(SIG_BLOCK, &s, &old);
    g_restart = false;
    bind(UINT64_MAX - (kPeriod - 1));
    // Until the overflow is pending (a busy machine may take longer than a
    // tick to find the thread running), at most 5 s of CPU time.
    uint64_t cpu0 = thread_cpu_ns();
    sigset_t pending;
    do {
        cpctest::spin_cpu_ms(1);
        sigpending(&pending);
    } while (!sigismember(&pending, SIGEMT) && thread_cpu_ns() - cpu0 < 5000000000ull);
    cpctest::spin_cpu_ms(20);
    EXPECT_EQ(g_signals.load(), 0);
    EXPECT_TRUE(sigismember(&pending, SIGEMT)) << "no overflow in 5 s of CPU time";
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    EXPECT_EQ(g_signals.load(), 1);
}

// A thread that blocks SIGTRAP (libcpc's timer signal) for 400 ms of CPU
// time gets every period counted when it lets the signal in: the last
// TimerCounting::kAttributableNs (250 ms) of them as SIGEMTs at the PC of
// that moment, the older ones as merged overflows without a PC, not lost
// and not pinned on a PC that was not theirs.
TEST_F(TimerOverflow, ExpiriesLongPastAreCountedButNotGivenTodaysPc) {
    sigset_t trap, old;
    sigemptyset(&trap);
    sigaddset(&trap, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &trap, &old);
    uint64_t cpu0 = thread_cpu_ns();
    bind(UINT64_MAX - (kPeriod - 1));
    cpctest::spin_cpu_ms(400);
    // The periods due when the signal comes in, and those that end while
    // its SIGEMTs are handled, before the unbind.
    uint64_t before = thread_cpu_ns() - cpu0;
    pthread_sigmask(SIG_SETMASK, &old, nullptr); // every period due arrives here
    cpc_unbind(g_cpc, g_set);
    uint64_t after = thread_cpu_ns() - cpu0;
    double n = double(g_signals.load() + g_merged.load());
    EXPECT_GE(n, std::floor(double(before) / double(kPeriod)) - 1) << before << " ns before";
    EXPECT_LE(n, std::floor(double(after) / double(kPeriod)) + 1) << after << " ns after";
    EXPECT_GE(g_merged.load(), 100u) << "expiries 250-400 ms back were given the PC of now";
    EXPECT_LE(g_signals.load(), 260) << "more SIGEMTs in place than 250 ms of periods";
    EXPECT_GE(g_signals.load(), 200);
}

TEST_F(TimerOverflow, DefaultActionTerminatesLikeIllumos) {
    signal(SIGEMT, SIG_DFL);
    int rc = cpctest::in_child([this] {
        bind(UINT64_MAX - (kPeriod - 1));
        cpctest::spin_cpu_ms(5000); // ends at the first overflow
        return 0;
    });
    EXPECT_EQ(rc, 128 + SIGEMT);
}

namespace {
std::atomic<int> g_signals_b;
void on_emt_b(int, siginfo_t *si, void *) {
    if (si->si_code == EMT_CPCOVF)
        ++g_signals_b;
    if (g_stop_after > 0 && g_signals_b >= g_stop_after)
        g_stop = 1;
    cpc_set_restart(g_cpc, g_set);
}
} // namespace

TEST_F(TimerOverflow, HandlerInstalledAfterBindIsTheOneCalled) {
    bind(UINT64_MAX - (kPeriod - 1));
    spin_until_signals(10);
    int first = g_signals;
    install_emt(on_emt_b);
    g_signals_b = 0;
    spin_until_signals(10);
    cpc_unbind(g_cpc, g_set);
    EXPECT_GE(first, 10);
    EXPECT_EQ(g_signals.load(), first) << "the replaced handler was called";
    EXPECT_GE(g_signals_b.load(), 10);
}

namespace {
constexpr uint64_t kShort = 10000; // 10 us of CPU time
std::atomic<int> g_slow_signals;
void on_emt_slow(int, siginfo_t *si, void *) {
    if (si->si_code == EMT_CPCOVF)
        ++g_slow_signals;
    uint64_t until = thread_cpu_ns() + 3 * kShort; // a handler three periods long
    while (thread_cpu_ns() < until) {
    }
    if (!g_stop) // the watchdog's word: stay frozen, let the program run
        cpc_set_restart(g_cpc, g_set);
}

// A fixed amount of work, stopped early only by g_stop.
extern "C" __attribute__((noinline, no_sanitize_address)) uint64_t counted_spin(uint64_t n) {
    volatile uint64_t x = 0;
    uint64_t i = 0;
    for (; i < n && !g_stop; ++i)
        x = x + 1;
    return i;
}
} // namespace

// Example 2 of cpc(3CPC) with a preset 1,000 ns short of overflow: a
// handler slower than the period must not take all of the thread's CPU
// time.  The program's work is done, at a cost bounded by the handlers'.
TEST_F(TimerOverflow, HandlerSlowerThanThePeriodLeavesTheProgramItsTime) {
    // The work: about 100 ms of CPU time unprofiled.
    constexpr uint64_t kCalib = 20000000;
    uint64_t c0 = thread_cpu_ns();
    counted_spin(kCalib);
    uint64_t per = std::max<uint64_t>(thread_cpu_ns() - c0, 1);
    uint64_t n = kCalib * 100000000 / per;

    install_emt(on_emt_slow);
    g_slow_signals = 0;
    g_stop = 0;
    std::atomic<bool> done{false};
    pthread_t dog; // a failing backend must not hang the test: 60 s of wall time
    pthread_create(
        &dog, nullptr,
        [](void *p) -> void * {
            auto *d = static_cast<std::atomic<bool> *>(p);
            for (int i = 0; i < 1200 && !d->load(); ++i)
                usleep(50000);
            g_stop = 1;
            return nullptr;
        },
        &done);
    uint64_t c1 = thread_cpu_ns();
    bind(UINT64_MAX - (kShort - 1));
    uint64_t did = counted_spin(n);
    cpc_unbind(g_cpc, g_set);
    uint64_t spent = thread_cpu_ns() - c1;
    done = true;
    pthread_join(dog, nullptr);
    EXPECT_EQ(did, n) << "the program's work was not done in 60 s: the handlers took its time";
    EXPECT_GT(g_slow_signals.load(), 0);
    // Without a bound each handler's three periods bring three overflows
    // more, and the program never runs again; with it, the set restarts
    // after each signal's handlers as if frozen while they ran: the work
    // plus one 30 us handler per 10 us of it (4x; 10x allowed).
    EXPECT_LT(spent, 10 * (n * per / kCalib)) << spent << " ns for the work of " << n * per / kCalib
                                              << " ns, " << g_slow_signals.load() << " signals";
}

namespace {
std::mutex g_lock;
std::map<pid_t, int> g_signals_by_thread;
std::map<pid_t, uint64_t> g_first_value;
std::map<pid_t, int> tls_totals; // each thread's overflows, signalled or merged
__attribute__((tls_model("initial-exec"))) thread_local std::atomic<int> tls_signals{0};

void on_emt_threads(int, siginfo_t *si, void *) {
    if (si->si_code != EMT_CPCOVF)
        return;
    cpc_buf_t *b = cpc_buf_create(g_cpc, g_set); // test only: not signal-safe
    uint64_t v = 0;
    if (cpc_set_sample(g_cpc, g_set, b) == 0)
        cpc_buf_get(g_cpc, b, 0, &v);
    cpc_buf_destroy(g_cpc, b);
    pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
    {
        std::lock_guard<std::mutex> g(g_lock);
        if (g_signals_by_thread[tid]++ == 0)
            g_first_value[tid] = v;
    }
    int npcs = 0;
    int64_t merged = cpc_set_merged_overflows(g_cpc, g_set, nullptr, 0, &npcs);
    tls_signals.fetch_add(1 + int(merged > 0 ? merged : 0), std::memory_order_relaxed);
    cpc_set_restart(g_cpc, g_set);
}

// Spins until the thread's set overflowed 1 + 50 times (the first at
// once), at most 5 s of CPU time; returns its tid, and its CPU time spent
// in *arg.

void *spin_thread(void *arg) {
    uint64_t cpu0 = thread_cpu_ns();
    volatile unsigned long x = 0;
    for (unsigned long i = 0; tls_signals.load(std::memory_order_relaxed) < 1 + 50; ++i) {
        x = x + i;
        if (i % 1000000 == 0 && thread_cpu_ns() - cpu0 > 5000000000ull)
            break;
    }
    *static_cast<uint64_t *>(arg) = thread_cpu_ns() - cpu0;
    {
        std::lock_guard<std::mutex> g(g_lock);
        tls_totals[pid_t(syscall(SYS_gettid))] = tls_signals.load();
    }
    return reinterpret_cast<void *>(static_cast<intptr_t>(syscall(SYS_gettid)));
}
} // namespace

TEST_F(TimerOverflow, NewThreadsGetSigemtAtOnceThenSampleOnTheirOwn) {
    install_emt(on_emt_threads);
    bind(UINT64_MAX - (kPeriod - 1), "cpu-clock", CPC_BIND_LWP_INHERIT);
    constexpr int kThreads = 3;
    pthread_t t[kThreads];
    uint64_t spent[kThreads] = {};
    for (int i = 0; i < kThreads; ++i)
        ASSERT_EQ(pthread_create(&t[i], nullptr, spin_thread, &spent[i]), 0);
    std::vector<pid_t> tids;
    for (pthread_t &th : t) {
        void *ret = nullptr;
        pthread_join(th, &ret);
        tids.push_back(static_cast<pid_t>(reinterpret_cast<intptr_t>(ret)));
    }
    cpc_unbind(g_cpc, g_set);
    std::lock_guard<std::mutex> g(g_lock);
    for (int i = 0; i < kThreads; ++i) {
        pid_t tid = tids[i];
        SCOPED_TRACE(tid);
        // One immediate signal reading UINT64_MAX, then one per ms of its
        // own CPU time: the thread stopped at a signal, when all were in.
        EXPECT_EQ(g_first_value[tid], UINT64_MAX);
        // Overflows merged into a signal (a busy machine's late tick)
        // count as overflows too.
        int overflows = tls_totals[tid];
        EXPECT_GE(overflows, 1 + 50);
        EXPECT_NEAR(double(overflows - 1), std::floor(double(spent[i]) / double(kPeriod)), 1.0)
            << spent[i] << " ns spent";
    }
}

// The timer's signal is SIGTRAP: a SIGTRAP handler the program installed
// before libcpc still gets the SIGTRAPs that are not overflows.  Run in a
// fresh process: libcpc installs its handler once per process.
namespace {
std::atomic<int> g_foreign_traps;
void foreign_trap(int, siginfo_t *, void *) {
    ++g_foreign_traps;
}
} // namespace

TEST(TimerForeignTrap, ReachesTheProgramsOwnHandler) {
    if (std::getenv("CPC_TEST_FRESH") == nullptr) {
        fflush(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("CPC_TEST_FRESH", "1", 1);
            execl("/proc/self/exe", "test_timer", "--gtest_filter=TimerForeignTrap.*",
                  static_cast<char *>(nullptr));
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        return;
    }
    struct sigaction sa {};
    sa.sa_sigaction = foreign_trap;
    sa.sa_flags = SA_SIGINFO;
    ASSERT_EQ(sigaction(SIGTRAP, &sa, nullptr), 0);
    install_emt(on_emt);
    g_cpc = cpc_open(CPC_VER_CURRENT);
    g_set = cpc_set_create(g_cpc);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "cpu-clock", UINT64_MAX - (kPeriod - 1),
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    g_buf = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    raise(SIGTRAP);
    EXPECT_EQ(g_foreign_traps.load(), 1);
    spin_until_signals(10);
    EXPECT_GE(g_signals.load(), 10);
    EXPECT_EQ(g_foreign_traps.load(), 1);
    cpc_close(g_cpc);
}

// A timer's signal still queued when its set goes is libcpc's, never the
// program's: with SIGTRAP at its default action it must not kill.
TEST_F(TimerOverflow, UnbindWithASignalDueLeavesTheProgramAlone) {
    int rc = cpctest::in_child([this] {
        for (int i = 0; i < 50; ++i) {
            bind(UINT64_MAX - 99999); // 0.1 ms: due at every tick
            cpctest::spin_cpu_ms(5, 100000);
            cpc_unbind(g_cpc, g_set);
            cpc_set_destroy(g_cpc, g_set);
            g_set = cpc_set_create(g_cpc);
        }
        return 0;
    });
    EXPECT_EQ(rc, 0);
}
