// SPDX-License-Identifier: MIT
// CPC_OVF_NOTIFY_EMT: SIGEMT at overflow, frozen until restart, presets,
// chained long periods, signal dispositions.
#include "libcpc/src/counting_perf.h"
#include "libcpc/src/thread_state.h"
#include "tests/libcpc/helpers.h"
#include "tests/support/binomial.h"

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

// Not instrumented: AddressSanitizer's shadow memory would fault pages too.
extern "C" __attribute__((noinline, no_sanitize_address)) void overflow_touch(size_t n) {
    size_t len = n * 4096;
    auto *p = static_cast<volatile char *>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (size_t i = 0; i < n; ++i)
        p[i * 4096] = 1;
    munmap(const_cast<char *>(p), len);
}

namespace {

cpc_t *g_cpc;
cpc_set_t *g_set;
cpc_buf_t *g_buf;
std::atomic<int> g_signals, g_bad_code, g_outside, g_addr_mismatch;
std::atomic<bool> g_restart{true};
std::atomic<uint64_t> g_new_preset{0};
std::atomic<uint64_t> g_value_at_signal{0};
std::atomic<uint64_t> g_max_value_at_signal{0};
// Where a test binds a counting request beside the overflow request: its
// index, and the sum of its values at the signals (each counts from the
// last restart); and the overflows that merged into the signals.
int g_count_index = -1;
std::atomic<uint64_t> g_counted, g_merged;

void on_emt(int sig, siginfo_t *si, void *ucv) {
    if (sig != SIGEMT || si->si_code != EMT_CPCOVF) {
        ++g_bad_code;
        return;
    }
    ++g_signals;
    int npcs = 0;
    if (int64_t m = cpc_set_merged_overflows(g_cpc, g_set, nullptr, 0, &npcs); m > 0)
        g_merged += uint64_t(m);
    auto *uc = static_cast<ucontext_t *>(ucv);
    if (si->si_addr != reinterpret_cast<void *>(uc->uc_mcontext.gregs[REG_RIP]))
        ++g_addr_mismatch;
    Dl_info info;
    if (dladdr(si->si_addr, &info) == 0 || info.dli_sname == nullptr ||
        std::strcmp(info.dli_sname, "overflow_touch") != 0)
        ++g_outside;
    if (cpc_set_sample(g_cpc, g_set, g_buf) == 0) {
        uint64_t v;
        cpc_buf_get(g_cpc, g_buf, 0, &v);
        g_value_at_signal = v;
        if (v > g_max_value_at_signal)
            g_max_value_at_signal = v;
        if (g_count_index > 0 && cpc_buf_get(g_cpc, g_buf, g_count_index, &v) == 0)
            g_counted += v;
    }
    if (uint64_t p = g_new_preset.exchange(0))
        cpc_request_preset(g_cpc, 0, p);
    if (g_restart)
        cpc_set_restart(g_cpc, g_set);
}

// Every overflow test runs twice: with the overflow request's ring (the
// kernel writes the group's values at the overflow), and without (a
// process that may not map one reads the group in the handler).
struct Overflow : ::testing::TestWithParam<bool> {
    void SetUp() override {
        cpc::PerfCounting::set_rings_enabled(GetParam());
        g_cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(g_cpc, nullptr);
        g_set = cpc_set_create(g_cpc);
        g_signals = g_bad_code = g_outside = g_addr_mismatch = 0;
        g_max_value_at_signal = 0;
        g_count_index = -1;
        g_counted = g_merged = 0;
        g_restart = true;
        g_new_preset = 0;
        ASSERT_TRUE(cpctest::install_sigemt(on_emt));
    }
    void TearDown() override {
        cpc_close(g_cpc);
        signal(SIGEMT, SIG_DFL);
        cpc::PerfCounting::set_max_kernel_period(1ull << 62);
        cpc::PerfCounting::set_rings_enabled(true);
    }
    void bind(uint64_t preset, const char *event = "page-faults") {
        ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, event, preset,
                                      CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
                  0);
        g_buf = cpc_buf_create(g_cpc, g_set);
        ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0) << std::strerror(errno);
    }
    int overflow_around_a_handler_change();
    uint64_t value() {
        cpc_buf_t *b = cpc_buf_create(g_cpc, g_set);
        EXPECT_EQ(cpc_set_sample(g_cpc, g_set, b), 0);
        uint64_t v = 0;
        cpc_buf_get(g_cpc, b, 0, &v);
        return v;
    }
};

} // namespace

INSTANTIATE_TEST_SUITE_P(Snapshot, Overflow, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &p) {
                             return p.param ? "Ring" : "Read";
                         });

TEST(SigEmt, IsTheDocumentedSignal) {
    const char *off = std::getenv("CPC_TEST_EXPECT_SIGEMT_OFFSET");
    int expected = SIGRTMIN + (off ? std::atoi(off) : 5);
    EXPECT_EQ(SIGEMT, expected);
    EXPECT_EQ(EMT_CPCOVF, 1);
}

TEST_P(Overflow, ExactCountOfSignals) {
    bind(UINT64_MAX - 99);
    overflow_touch(20000);
    cpc_unbind(g_cpc, g_set);
    EXPECT_GE(g_signals.load(), 200);
    EXPECT_LE(g_signals.load(), 205);
    EXPECT_EQ(g_bad_code.load(), 0);
    EXPECT_EQ(g_outside.load(), 0) << "si_addr outside the touching function";
    EXPECT_EQ(g_addr_mismatch.load(), 0) << "si_addr differs from the ucontext PC";
    // The value read in the handler is preset + events mod 2^64: just wrapped.
    EXPECT_LT(g_value_at_signal.load(), 5u);
    // Taken from the ring, it is that of the overflow instant, every time.
    if (GetParam()) {
        EXPECT_EQ(g_max_value_at_signal.load(), 0u);
    }
}

// An overflow and its restart make no system call where the overflow
// request has its ring: the values of the overflow come from it.  Without
// one, each overflow reads the group.
TEST_P(Overflow, OverflowValuesComeFromTheRing) {
    bind(UINT64_MAX - 99);
    auto *c = dynamic_cast<cpc::PerfCounting *>(cpc::current_counting());
    ASSERT_NE(c, nullptr);
    if (GetParam() && !c->has_rings())
        GTEST_SKIP() << "the kernel refused the ring's mapping (perf_event_mlock_kb and "
                        "RLIMIT_MEMLOCK spent): overflows read the group";
    overflow_touch(20000);
    uint64_t reads = c->overflow_reads();
    int signals = g_signals;
    cpc_unbind(g_cpc, g_set);
    EXPECT_GE(signals, 200);
    EXPECT_EQ(reads, GetParam() ? 0u : uint64_t(signals));
}

namespace {
std::atomic<int> g_signals_b;
void on_emt_b(int, siginfo_t *si, void *) {
    if (si->si_code == EMT_CPCOVF)
        ++g_signals_b;
    cpc_set_restart(g_cpc, g_set);
}
bool stable_promised() {
    const char *v = std::getenv("CPC_SIGEMT_STABLE");
    return v != nullptr && std::strcmp(v, "1") == 0;
}
void install_emt(void (*h)(int, siginfo_t *, void *)) {
    cpctest::install_sigemt(h);
}

// Binds, overflows about ten times, installs on_emt_b in place of on_emt
// and overflows about ten times more.  Returns the signals on_emt had
// counted before the switch.
int Overflow::overflow_around_a_handler_change() {
    g_signals_b = 0;
    bind(UINT64_MAX - 99);
    overflow_touch(1000);
    int first = g_signals;
    install_emt(on_emt_b);
    overflow_touch(1000);
    return first;
}
} // namespace

// As the kernel would: each overflow goes to the handler installed at that
// moment, also one installed after the bind.
TEST_P(Overflow, HandlerInstalledAfterBindIsTheOneCalled) {
    if (stable_promised())
        GTEST_SKIP() << "CPC_SIGEMT_STABLE=1: the program promised not to change its handler";
    int first = overflow_around_a_handler_change();
    cpc_unbind(g_cpc, g_set);
    EXPECT_GE(first, 9);
    EXPECT_EQ(g_signals.load(), first) << "the replaced handler was called";
    EXPECT_GE(g_signals_b.load(), 9);
}

// CPC_SIGEMT_STABLE=1: the disposition is read at each bind, not at each
// overflow; a handler installed after the bind (which the program promised
// not to do) is the one called from the next bind on.  libcpc reads the
// variable when it is loaded: run in a fresh process that has it.
TEST_P(Overflow, StableDispositionIsReadAtBind) {
    if (!stable_promised()) {
        std::string filter =
            std::string("--gtest_filter=*Overflow.StableDispositionIsReadAtBind/") +
            (GetParam() ? "Ring" : "Read");
        fflush(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("CPC_SIGEMT_STABLE", "1", 1);
            execl("/proc/self/exe", "test_overflow", filter.c_str(), static_cast<char *>(nullptr));
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "the run with CPC_SIGEMT_STABLE=1";
        return;
    }
    int first = overflow_around_a_handler_change();
    EXPECT_GE(g_signals.load(), first + 9) << "the disposition of the bind is used";
    EXPECT_EQ(g_signals_b.load(), 0);
    int before = g_signals;
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    overflow_touch(1000);
    cpc_unbind(g_cpc, g_set);
    EXPECT_GE(g_signals_b.load(), 9) << "the new bind read the new disposition";
    EXPECT_EQ(g_signals.load(), before);
}

TEST_P(Overflow, StaysFrozenUntilRestart) {
    g_restart = false;
    bind(UINT64_MAX - 99);
    overflow_touch(300);
    EXPECT_EQ(g_signals.load(), 1);
    uint64_t frozen = value();
    EXPECT_LT(frozen, 5u);
    overflow_touch(1000);
    EXPECT_EQ(value(), frozen) << "counting resumed without cpc_set_restart";
    EXPECT_EQ(g_signals.load(), 1);
    ASSERT_EQ(cpc_set_restart(g_cpc, g_set), 0);
    EXPECT_GE(value(), UINT64_MAX - 99);
    overflow_touch(150);
    EXPECT_EQ(g_signals.load(), 2);
}

TEST_P(Overflow, WholeSetFreezes) {
    g_restart = false;
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", UINT64_MAX - 49,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "minor-faults", 0, CPC_COUNT_USER, 0, nullptr), 1);
    g_buf = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    overflow_touch(1000);
    EXPECT_EQ(g_signals.load(), 1);
    cpc_buf_t *b = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_set_sample(g_cpc, g_set, b), 0);
    uint64_t other = 0;
    cpc_buf_get(g_cpc, b, 1, &other);
    EXPECT_GE(other, 49u);
    EXPECT_LT(other, 60u) << "the other request kept counting after the overflow";
}

TEST_P(Overflow, RequestPresetInHandlerSetsTheNextPeriod) {
    g_new_preset = UINT64_MAX - 49;
    bind(UINT64_MAX - 999);
    overflow_touch(1000 + 50 * 10 + 25);
    EXPECT_GE(g_signals.load(), 1 + 10);
    EXPECT_LE(g_signals.load(), 1 + 11);
    // The new preset holds for later restarts too.
    int now = g_signals;
    overflow_touch(500);
    EXPECT_GE(g_signals.load(), now + 9);
    EXPECT_LE(g_signals.load(), now + 11);
}

TEST_P(Overflow, LongPeriodsAreChainedWithoutSpuriousSignals) {
    // The kernel takes at most 2^63 - 1 per period; with the link lowered to
    // 1000, a 2500-event period needs three links and must signal once.
    cpc::PerfCounting::set_max_kernel_period(1000);
    g_restart = false;
    bind(UINT64_MAX - 2499);
    overflow_touch(2300);
    EXPECT_EQ(g_signals.load(), 0);
    uint64_t v = value();
    EXPECT_GE(v, UINT64_MAX - 2499 + 2300);
    EXPECT_LT(v, UINT64_MAX - 2499 + 2350) << "counts were lost between links";
    overflow_touch(400);
    EXPECT_EQ(g_signals.load(), 1);
    EXPECT_LT(value(), 5u);
}

TEST_P(Overflow, PresetFarFromOverflowDoesNotSignal) {
    // 2^64 - 10^6 events away: no signal, and the value counts on.
    bind(1000000);
    overflow_touch(2000);
    EXPECT_EQ(g_signals.load(), 0);
    EXPECT_GE(value(), 1002000u);
}

TEST_P(Overflow, BlockedSignalStaysPending) {
    sigset_t s, old;
    sigemptyset(&s);
    sigaddset(&s, SIGEMT);
    pthread_sigmask(SIG_BLOCK, &s, &old);
    bind(UINT64_MAX - 99);
    overflow_touch(1000);
    EXPECT_EQ(g_signals.load(), 0);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    EXPECT_EQ(g_signals.load(), 1);
}

TEST_P(Overflow, DefaultActionTerminatesLikeIllumos) {
    signal(SIGEMT, SIG_DFL);
    int rc = cpctest::in_child([this] {
        bind(UINT64_MAX - 9);
        overflow_touch(100);
        return 0;
    });
    EXPECT_EQ(rc, 128 + SIGEMT);
}

namespace {
std::atomic<int> g_foreign_traps;
void foreign_trap(int, siginfo_t *, void *) {
    ++g_foreign_traps;
}
} // namespace

// A SIGTRAP handler the program installed before libcpc still gets the
// SIGTRAPs that are not overflows.  Run in a fresh process: libcpc installs
// its handler once per process.
TEST(ForeignTrap, ReachesTheProgramsOwnHandler) {
    if (std::getenv("CPC_TEST_FRESH") == nullptr) {
        fflush(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            setenv("CPC_TEST_FRESH", "1", 1);
            execl("/proc/self/exe", "test_overflow", "--gtest_filter=ForeignTrap.*",
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
    sa.sa_sigaction = on_emt;
    ASSERT_EQ(sigaction(SIGEMT, &sa, nullptr), 0);
    g_cpc = cpc_open(CPC_VER_CURRENT);
    g_set = cpc_set_create(g_cpc);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", UINT64_MAX - 99,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    g_buf = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    raise(SIGTRAP);
    EXPECT_EQ(g_foreign_traps.load(), 1);
    overflow_touch(1000);
    EXPECT_GE(g_signals.load(), 9);
    EXPECT_EQ(g_foreign_traps.load(), 1);
    cpc_close(g_cpc);
}

namespace {
// CPU time in user mode: a clock's overflow that falls while the thread is
// in the kernel is not taken when only user time is requested (perf drops
// it), so the loop makes a system call only every millisecond or so.
void spin_ms(int ms) {
    cpctest::spin_cpu_ms(ms, 1000000);
}
} // namespace

// Clocks are frozen in software (see counting.h): the same contract.
TEST_P(Overflow, ClockStaysFrozenUntilRestart) {
    constexpr uint64_t kPeriod = 1000000; // 1 ms of CPU time
    g_restart = false;
    cpctest::KernelClockOverflows reference(kPeriod);
    ASSERT_TRUE(reference.ok()) << reference.error();
    bind(UINT64_MAX - (kPeriod - 1), "cpu-clock");
    reference.start();
    spin_ms(30);
    EXPECT_EQ(g_signals.load(), 1) << "one SIGEMT per overflow, none while frozen";
    uint64_t frozen = value();
    spin_ms(5);
    EXPECT_EQ(value(), frozen) << "the value moved while frozen";
    ASSERT_EQ(cpc_set_restart(g_cpc, g_set), 0);
    EXPECT_GE(value(), UINT64_MAX - (kPeriod - 1));
    spin_ms(30);
    reference.stop();
    EXPECT_EQ(g_signals.load(), 2);
    // Read at the overflow, not 30 ms later.  A period that ends while the
    // thread is in the kernel is no overflow (a user-mode count), and the
    // next one is taken: the value is some whole periods past the wrap,
    // and the overflow taken comes after k periods that were not, each
    // with the chance that the reference event of the same clock and
    // period missed one.  At the lowest rate of taken periods that the
    // reference allows (binomial, as the other bounds), k periods in a row
    // are missed in one run in a million.
    uint64_t periods = reference.counted() / kPeriod; // the 30 + 5 + 30 ms spun
    double taken =
        cpcprof::test::binomial_rate_lower_bound(std::min(reference.overflows(), periods), periods);
    uint64_t k = 1;
    while (std::pow(1 - taken, double(k)) > cpcprof::test::kBinomialTail)
        ++k;
    std::string seen = std::to_string(frozen) + " ns past the wrap; the reference took " +
                       std::to_string(reference.overflows()) + " of " + std::to_string(periods) +
                       " periods, so " + std::to_string(k) + " in a row are not missed";
    ASSERT_LT(k, 29u) << "the reference missed too many periods to judge: " << seen;
    EXPECT_LT(frozen, k * kPeriod) << "read just after the wrap: " << seen;
}

// Restarted from the handler, the clock overflows at every period it
// counts, and every overflow is a signal or merged into one
// (cpc_set_merged_overflows: a signal not yet delivered when the next
// overflow came).  Judged against two counts of the kernel's over the
// same CPU time: the periods that a counting request of the same clock
// went through, and the overflows that a plain perf event of the same
// clock and period took (KernelClockOverflows).  A period that ends while
// the thread is in the kernel is no overflow of a user-mode count, more
// of them on a busy machine: the reference's rate, at its binomial lower
// bound, is the share of the periods that must have been taken.
TEST_P(Overflow, ClockSamplesEveryPeriodWhenRestarted) {
    constexpr uint64_t kPeriod = 1000000; // 1 ms of CPU time
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "cpu-clock", UINT64_MAX - (kPeriod - 1),
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 1);
    g_count_index = 1;
    g_buf = cpc_buf_create(g_cpc, g_set);
    cpc_buf_t *end = cpc_buf_create(g_cpc, g_set);
    cpctest::KernelClockOverflows reference(kPeriod);
    ASSERT_TRUE(reference.ok()) << reference.error();
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0) << std::strerror(errno);
    reference.start();
    spin_ms(400);
    reference.stop();
    ASSERT_EQ(cpc_set_sample(g_cpc, g_set, end), 0) << std::strerror(errno);
    uint64_t since_restart = 0;
    cpc_buf_get(g_cpc, end, 1, &since_restart);
    cpc_unbind(g_cpc, g_set);
    uint64_t periods = (g_counted + since_restart) / kPeriod;
    uint64_t signals = uint64_t(g_signals.load()), taken = signals + g_merged;
    uint64_t ref = std::min(reference.overflows(), periods);
    double rate = cpcprof::test::binomial_rate_lower_bound(ref, periods);
    std::string seen = std::to_string(signals) + " signals, " + std::to_string(g_merged.load()) +
                       " overflows merged into them; the counter counted " +
                       std::to_string(periods) + " periods, the reference took " +
                       std::to_string(reference.overflows()) + " overflows (rate at least " +
                       std::to_string(rate) + ")";
    std::printf("%s\n", seen.c_str());
    // 400 ms spun; each handler's time between its read of the counting
    // request and the restart is counted by neither read (microseconds,
    // under 25 us even in a sanitized build: 10 ms over 400 signals).
    ASSERT_GE(periods, 390u) << "the counter missed CPU time the thread spun: " << seen;
    EXPECT_LE(taken, periods + 1) << "overflows that no period made: " << seen;
    EXPECT_GE(taken, cpcprof::test::binomial_lower_bound(periods, rate))
        << cpcprof::test::binomial_story(taken, periods, rate) << "; " << seen;
    EXPECT_EQ(g_outside.load(), g_signals.load()) << "PCs are in spin_ms, not overflow_touch";
    EXPECT_EQ(g_addr_mismatch.load(), 0);
}
