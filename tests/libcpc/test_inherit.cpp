// SPDX-License-Identifier: MIT
// CPC_BIND_LWP_INHERIT: every thread created after the bind counts on its
// own copy of the set.
#include "tests/libcpc/helpers.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace {

constexpr int kThreads = 8;

cpc_t *g_cpc;
cpc_set_t *g_set;

struct ThreadResult {
    uint64_t first = 0; // value sampled as the thread starts
    uint64_t last = 0;  // after its own work
    int sample_rc = 0;
};

struct Work {
    int pages;
    ThreadResult *out;
};

void *count_own(void *p) {
    auto *w = static_cast<Work *>(p);
    cpc_buf_t *b = cpc_buf_create(g_cpc, g_set);
    uint64_t v = 0;
    w->out->sample_rc |= cpc_set_sample(g_cpc, g_set, b);
    cpc_buf_get(g_cpc, b, 0, &v);
    w->out->first = v;
    cpctest::touch_pages(w->pages);
    w->out->sample_rc |= cpc_set_sample(g_cpc, g_set, b);
    cpc_buf_get(g_cpc, b, 0, &v);
    w->out->last = v;
    cpc_buf_destroy(g_cpc, b);
    return nullptr;
}

std::mutex g_lock;
std::map<pid_t, int> g_signals_by_thread;
std::map<pid_t, uint64_t> g_first_value;

void on_emt(int sig, siginfo_t *si, void *) {
    if (sig != SIGEMT || si->si_code != EMT_CPCOVF)
        return;
    pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
    cpc_buf_t *b = cpc_buf_create(g_cpc, g_set); // test code: not signal-safe, fine here
    uint64_t v = 0;
    if (cpc_set_sample(g_cpc, g_set, b) == 0)
        cpc_buf_get(g_cpc, b, 0, &v);
    {
        std::lock_guard<std::mutex> g(g_lock);
        if (g_signals_by_thread[tid]++ == 0)
            g_first_value[tid] = v;
    }
    cpc_set_restart(g_cpc, g_set);
}

void *sample_own(void *p) {
    cpctest::touch_pages(*static_cast<int *>(p));
    return reinterpret_cast<void *>(syscall(SYS_gettid));
}

struct Inherit : ::testing::Test {
    void SetUp() override {
        g_cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(g_cpc, nullptr);
        g_set = cpc_set_create(g_cpc);
        g_signals_by_thread.clear();
        g_first_value.clear();
    }
    void TearDown() override { cpc_close(g_cpc); }
};

} // namespace

TEST_F(Inherit, EachThreadCountsItsOwnEventsFromThePreset) {
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", 1000000, CPC_COUNT_USER, 0, nullptr),
              0);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, CPC_BIND_LWP_INHERIT), 0);
    cpc_buf_t *mine = cpc_buf_create(g_cpc, g_set);
    ASSERT_EQ(cpc_set_sample(g_cpc, g_set, mine), 0);
    uint64_t parent0 = 0;
    cpc_buf_get(g_cpc, mine, 0, &parent0);

    pthread_t t[kThreads];
    ThreadResult res[kThreads];
    Work work[kThreads];
    for (int i = 0; i < kThreads; ++i) {
        work[i] = {200 * (i + 1), &res[i]};
        ASSERT_EQ(pthread_create(&t[i], nullptr, count_own, &work[i]), 0);
    }
    for (pthread_t &th : t)
        pthread_join(th, nullptr);

    for (int i = 0; i < kThreads; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(res[i].sample_rc, 0) << "the new thread could not sample its own set";
        EXPECT_GE(res[i].first, 1000000u);
        EXPECT_LT(res[i].first, 1000000u + 100) << "a new thread starts at the preset";
        uint64_t own = res[i].last - res[i].first;
        EXPECT_GE(own, uint64_t(work[i].pages));
        EXPECT_LT(own, uint64_t(work[i].pages) + 50) << "another thread's events leaked in";
    }
    ASSERT_EQ(cpc_set_sample(g_cpc, g_set, mine), 0);
    uint64_t parent1 = 0;
    cpc_buf_get(g_cpc, mine, 0, &parent1);
    EXPECT_LT(parent1 - parent0, 200u) << "children's faults were counted for the parent";
}

TEST_F(Inherit, NewThreadsGetSigemtAtOnceThenSampleOnTheirOwn) {
    struct sigaction sa {};
    sa.sa_sigaction = on_emt;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    ASSERT_EQ(sigaction(SIGEMT, &sa, nullptr), 0);
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", UINT64_MAX - 99,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, CPC_BIND_LWP_INHERIT), 0);

    pthread_t t[kThreads];
    int pages = 1000;
    for (pthread_t &th : t)
        ASSERT_EQ(pthread_create(&th, nullptr, sample_own, &pages), 0);
    std::vector<pid_t> tids;
    for (pthread_t &th : t) {
        void *ret = nullptr;
        pthread_join(th, &ret);
        tids.push_back(static_cast<pid_t>(reinterpret_cast<intptr_t>(ret)));
    }
    signal(SIGEMT, SIG_DFL);
    std::lock_guard<std::mutex> g(g_lock);
    for (pid_t tid : tids) {
        SCOPED_TRACE(tid);
        // One immediate signal reading UINT64_MAX, then one per 100 faults.
        EXPECT_EQ(g_first_value[tid], UINT64_MAX);
        EXPECT_GE(g_signals_by_thread[tid], 1 + 10);
        EXPECT_LE(g_signals_by_thread[tid], 1 + 12);
    }
}

TEST_F(Inherit, EndedThreadsReleaseTheirCounters) {
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, CPC_BIND_LWP_INHERIT), 0);
    int before = cpctest::perf_fds();
    for (int round = 0; round < 3; ++round) {
        pthread_t t[kThreads];
        int pages = 10;
        for (pthread_t &th : t)
            ASSERT_EQ(pthread_create(&th, nullptr, sample_own, &pages), 0);
        for (pthread_t &th : t)
            pthread_join(th, nullptr);
    }
    EXPECT_EQ(cpctest::perf_fds(), before);
}

TEST_F(Inherit, WithoutTheFlagNewThreadsAreNotCounted) {
    ASSERT_EQ(cpc_set_add_request(g_cpc, g_set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(g_cpc, g_set, 0), 0);
    ThreadResult res;
    Work w{10, &res};
    pthread_t t;
    ASSERT_EQ(pthread_create(&t, nullptr, count_own, &w), 0);
    pthread_join(t, nullptr);
    EXPECT_NE(res.sample_rc, 0) << "a thread without a binding sampled a set";
}
