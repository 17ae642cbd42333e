// SPDX-License-Identifier: MIT
// cpc_set_kernel_frames (a Linux extension): where the sampling request
// counts in the kernel, an overflow taken there gives the SIGEMT handler
// the kernel's part of the stack; the signal's context has the user's.
#include "libcpc/src/counting_perf.h"
#include "libcpc/src/thread_state.h"
#include "tests/libcpc/helpers.h"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

constexpr uint64_t kPeriodNs = 200000; // cpu-clock, 200 us
constexpr int kMaxFrames = 64;

cpc_t *g_cpc;
cpc_set_t *g_set;
std::atomic<int> g_signals, g_with_frames, g_not_kernel, g_errors;
// The innermost kernel frame of every overflow taken there: up to 4096.
std::atomic<uint64_t> g_leaves[4096];
std::atomic<int> g_nleaves;
// Every frame of the first such overflows: up to 4096 (their callers too).
std::atomic<uint64_t> g_frames[4096];
std::atomic<int> g_nframes;

void on_emt(int, siginfo_t *si, void *) {
    if (si->si_code != EMT_CPCOVF)
        return;
    ++g_signals;
    uint64_t pcs[kMaxFrames];
    int n = cpc_set_kernel_frames(g_cpc, g_set, pcs, kMaxFrames);
    if (n < 0) {
        ++g_errors;
    } else if (n > 0) {
        ++g_with_frames;
        for (int i = 0; i < n; ++i)
            if (pcs[i] < (uint64_t(1) << 63))
                ++g_not_kernel;
        if (int k = g_nleaves++; k < 4096)
            g_leaves[k] = pcs[0];
        for (int i = 0; i < n; ++i)
            if (int k = g_nframes++; k < 4096)
                g_frames[k] = pcs[i];
    }
    cpc_set_restart(g_cpc, g_set);
}

std::string paranoid() {
    std::string v;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> v;
    return v;
}

// /proc/kallsyms' text symbols: start address to name (zeros where the
// kernel hides addresses from this user).
std::map<uint64_t, std::string> kernel_symbols() {
    std::map<uint64_t, std::string> syms;
    std::ifstream in("/proc/kallsyms");
    for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        std::string addr, type, name;
        if (!(l >> addr >> type >> name) || (type != "t" && type != "T"))
            continue;
        uint64_t a = std::strtoull(addr.c_str(), nullptr, 16);
        if (a != 0)
            syms.emplace(a, name);
    }
    return syms;
}

std::string name_of(const std::map<uint64_t, std::string> &syms, uint64_t pc) {
    auto it = syms.upper_bound(pc);
    return it == syms.begin() ? std::string() : std::prev(it)->second;
}

struct KernelFrames : ::testing::Test {
    void SetUp() override {
        g_cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(g_cpc, nullptr);
        const char *backend = cpc_backend(g_cpc, nullptr, nullptr);
        if (backend == nullptr || std::strcmp(backend, "perf_event") != 0)
            GTEST_SKIP() << "kernel frames need perf_event_open (backend: "
                         << (backend ? backend : "?") << ")";
        g_set = cpc_set_create(g_cpc);
        g_signals = g_with_frames = g_not_kernel = g_errors = 0;
        g_nleaves = g_nframes = 0;
        ASSERT_TRUE(cpctest::install_sigemt(on_emt));
    }
    void TearDown() override {
        if (g_cpc != nullptr)
            cpc_close(g_cpc);
        signal(SIGEMT, SIG_DFL);
    }
    // Binds cpu-clock with flags; false (and a skip) where the kernel may
    // not be counted here.
    bool bind(uint_t flags) {
        EXPECT_EQ(cpc_set_add_request(g_cpc, g_set, "cpu-clock", UINT64_MAX - (kPeriodNs - 1),
                                      flags | CPC_OVF_NOTIFY_EMT, 0, nullptr),
                  0);
        if (cpc_bind_curlwp(g_cpc, g_set, 0) != 0) {
            if ((flags & CPC_COUNT_SYSTEM) != 0 && (errno == EACCES || errno == EPERM))
                return false;
            ADD_FAILURE() << "cpc_bind_curlwp: " << std::strerror(errno);
            return false;
        }
        return true;
    }
};

// Faulting in fresh pages spends most of the thread's time in the kernel:
// those overflows come with the kernel's frames, the page-fault path.
TEST_F(KernelFrames, AnOverflowInThePageFaultPathHasItsKernelFrames) {
    if (!bind(CPC_COUNT_USER | CPC_COUNT_SYSTEM))
        GTEST_SKIP() << "the kernel may not be counted here (perf_event_paranoid " << paranoid()
                     << ", no CAP_PERFMON)";
    auto *c = dynamic_cast<cpc::PerfCounting *>(cpc::current_counting());
    ASSERT_NE(c, nullptr);
    if (!c->has_rings()) {
        cpc_unbind(g_cpc, g_set);
        GTEST_SKIP() << "the kernel refused the ring's mapping (perf_event_mlock_kb and "
                        "RLIMIT_MEMLOCK spent): no records, no kernel frames";
    }
    for (int i = 0; i < 40; ++i)
        cpctest::touch_pages(5000);
    cpc_unbind(g_cpc, g_set);
    ASSERT_GT(g_signals.load(), 50) << "too few overflows to judge";
    EXPECT_EQ(g_errors.load(), 0);
    EXPECT_EQ(g_not_kernel.load(), 0) << "a frame outside the kernel's half";
    EXPECT_GE(g_with_frames.load(), g_signals.load() / 4)
        << "most of a page-faulting thread's time is the kernel's";
    std::map<uint64_t, std::string> syms = kernel_symbols();
    if (syms.empty())
        GTEST_SKIP() << "/proc/kallsyms hides the kernel's addresses from this user: the frames "
                        "cannot be named here";
    int faulting = 0, named = 0, n = std::min(g_nframes.load(), 4096);
    for (int i = 0; i < n; ++i) {
        std::string name = name_of(syms, g_frames[i]);
        named += !name.empty();
        faulting += name.find("fault") != std::string::npos;
    }
    EXPECT_EQ(named, n) << "frames outside the kernel's text";
    EXPECT_GT(faulting, 0) << "no frame of the page-fault path among " << n;
}

// A request that counts in user mode only has no overflow in the kernel.
TEST_F(KernelFrames, AUserModeCountHasNone) {
    ASSERT_TRUE(bind(CPC_COUNT_USER));
    for (int i = 0; i < 10; ++i)
        cpctest::touch_pages(5000);
    cpctest::spin_cpu_ms(30);
    cpc_unbind(g_cpc, g_set);
    ASSERT_GT(g_signals.load(), 20);
    EXPECT_EQ(g_errors.load(), 0);
    EXPECT_EQ(g_with_frames.load(), 0);
}

// Outside a handler of a bound set: EINVAL.
TEST_F(KernelFrames, AnUnboundSetIsRefused) {
    uint64_t pcs[4];
    errno = 0;
    EXPECT_EQ(cpc_set_kernel_frames(g_cpc, g_set, pcs, 4), -1);
    EXPECT_EQ(errno, EINVAL);
}

} // namespace
