// SPDX-License-Identifier: MIT
#include "profiler/record/signal_cost.h"

#include "base/clock.h"

#include <libcpc.h>

#include <signal.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cpcprof::record {

namespace {

// The period of the measurement: long enough that no machine this runs on
// spends it all in the round trip, short enough for a few hundred
// overflows in the budget.
constexpr uint64_t kPeriodNs = 50 * 1000;
constexpr int kRounds = 4;
constexpr int64_t kBaselineNs = 1 * 1000 * 1000; // one spin of the loop alone
constexpr int kSpinsPerRound = 3;                // spins under overflows per round
constexpr int64_t kBudgetNs = 60 * 1000 * 1000;  // the handler's limit

cpc_t *g_cpc = nullptr;
cpc_set_t *g_set = nullptr;
std::atomic<uint64_t> g_overflows{0};
std::atomic<int64_t> g_deadline{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free);

using base::thread_cpu_ns; // [async-signal-safe]: the handler reads it

// [async-signal-safe] Counts the overflow and restarts the counters while
// the budget lasts.
void on_emt(int, siginfo_t *si, void *) {
    int saved = errno;
    if (si->si_code == EMT_CPCOVF) {
        g_overflows.fetch_add(1, std::memory_order_relaxed);
        if (thread_cpu_ns() < g_deadline.load(std::memory_order_relaxed))
            cpc_set_restart(g_cpc, g_set);
    }
    errno = saved;
}

__attribute__((noinline)) uint64_t spin(uint64_t n) {
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < n; ++i)
        x = x + i;
    return x;
}

// CPU time of spin(n), ns.
int64_t timed_spin(uint64_t n) {
    int64_t t0 = thread_cpu_ns();
    spin(n);
    return thread_cpu_ns() - t0;
}

// The loop count of one baseline spin.
uint64_t size_spin() {
    uint64_t n = 1 << 14;
    while (n < (uint64_t(1) << 40)) {
        int64_t t = timed_spin(n);
        if (t >= kBaselineNs / 4)
            return std::max<uint64_t>(n, uint64_t(double(n) * kBaselineNs / double(t)));
        n *= 4;
    }
    return n;
}

std::string g_last_error;
void collect(const char *, int, const char *fmt, va_list ap) {
    char buf[256];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    g_last_error = buf;
}

struct Restore {
    struct sigaction old {};
    bool installed = false;
    ~Restore() {
        if (g_set != nullptr)
            cpc_set_destroy(g_cpc, g_set);
        if (g_cpc != nullptr)
            cpc_close(g_cpc);
        g_set = nullptr;
        g_cpc = nullptr;
        if (installed)
            sigaction(SIGEMT, &old, nullptr);
    }
};

} // namespace

std::optional<OverflowCost> measure_overflow_cost(std::string *error) {
    Restore restore;
    g_cpc = cpc_open(CPC_VER_CURRENT);
    if (g_cpc == nullptr) {
        *error = std::string("performance counters are not available: ") + std::strerror(errno);
        return std::nullopt;
    }
    cpc_seterrhndlr(g_cpc, collect);
    struct sigaction sa {};
    sa.sa_sigaction = on_emt;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGEMT, &sa, &restore.old) != 0) {
        *error = std::string("sigaction: ") + std::strerror(errno);
        return std::nullopt;
    }
    restore.installed = true;
    g_set = cpc_set_create(g_cpc);
    if (g_set == nullptr ||
        cpc_set_add_request(g_cpc, g_set, "cpu-clock", UINT64_MAX - (kPeriodNs - 1),
                            CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr) < 0) {
        *error = "cpu-clock overflows cannot be set up: " + g_last_error;
        return std::nullopt;
    }
    int64_t start = thread_cpu_ns();
    g_deadline.store(start + kBudgetNs, std::memory_order_relaxed);
    uint64_t n = size_spin();
    std::vector<int64_t> alone;
    int64_t under = 0;
    uint64_t overflows = 0;
    for (int r = 0; r < kRounds; ++r) {
        alone.push_back(timed_spin(n));
        g_overflows.store(0);
        if (cpc_bind_curlwp(g_cpc, g_set, 0) != 0) {
            *error = "cpu-clock overflows cannot be set up: " + g_last_error;
            return std::nullopt;
        }
        under += timed_spin(n * kSpinsPerRound);
        cpc_unbind(g_cpc, g_set);
        overflows += g_overflows.load();
    }
    alone.push_back(timed_spin(n));
    // The median spin alone: one slow spin (a migration, a cold cache) does
    // not make every overflow look cheaper.
    std::nth_element(alone.begin(), alone.begin() + alone.size() / 2, alone.end());
    double base = double(alone[alone.size() / 2]) * kRounds * kSpinsPerRound;
    OverflowCost c;
    c.overflows = overflows;
    c.cpu_ns = double(thread_cpu_ns() - start);
    // Noise can make the difference negative on a fast machine: the
    // estimate is then at least the kernel's work, which is never free.
    double lost = std::max(0.0, double(under) - base);
    c.ns_per_overflow = overflows ? std::max(lost / double(overflows), 500.0) : 0;
    if (overflows == 0) {
        *error = "no cpu-clock overflow arrived while measuring their cost";
        return std::nullopt;
    }
    return c;
}

double sustainable_rate(const OverflowCost &c, double share) {
    return c.ns_per_overflow > 0 ? share * 1e9 / c.ns_per_overflow : 0;
}

} // namespace cpcprof::record
