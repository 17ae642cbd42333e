// SPDX-License-Identifier: MIT
// cpc_bind_curlwp, virtual counters, sampling, restart, enable/disable,
// fork and exec.
#include "tests/libcpc/helpers.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace {

hrtime_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return hrtime_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// ms of the calling thread's CPU time, however busy the machine.
void spin_ms(int ms) {
    cpctest::spin_cpu_ms(ms);
}

struct Bind : ::testing::Test {
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    cpc_buf_t *buf = nullptr;
    void SetUp() override {
        cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc, nullptr);
        cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
        cpctest::ErrorLog::clear();
        set = cpc_set_create(cpc);
    }
    void TearDown() override { cpc_close(cpc); }

    uint64_t value(int index) {
        EXPECT_EQ(cpc_set_sample(cpc, set, buf), 0) << std::strerror(errno);
        uint64_t v = 0;
        cpc_buf_get(cpc, buf, index, &v);
        return v;
    }
};

} // namespace

TEST_F(Bind, VirtualCounterIsPresetPlusEvents) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 5000, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    uint64_t v0 = value(0);
    EXPECT_GE(v0, 5000u);
    EXPECT_LT(v0, 5050u);
    cpctest::touch_pages(3000);
    uint64_t v1 = value(0);
    EXPECT_GE(v1 - v0, 3000u);
    EXPECT_LE(v1 - v0, 3020u);
}

TEST_F(Bind, VirtualCounterWrapsModulo2To64) {
    ASSERT_EQ(
        cpc_set_add_request(cpc, set, "page-faults", UINT64_MAX - 99, CPC_COUNT_USER, 0, nullptr),
        0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    cpctest::touch_pages(1000);
    uint64_t v = value(0);
    EXPECT_GE(v, 900u - 1);
    EXPECT_LE(v, 950u);
}

TEST_F(Bind, HrtimeIsMonotonicNanosecondsAndTickCountsCycles) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    cpc_buf_t *before = cpc_buf_create(cpc, set), *diff = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    hrtime_t t0 = mono_ns();
    ASSERT_EQ(cpc_set_sample(cpc, set, before), 0);
    spin_ms(200);
    ASSERT_EQ(cpc_set_sample(cpc, set, buf), 0);
    hrtime_t t1 = mono_ns();
    EXPECT_GE(cpc_buf_hrtime(cpc, before), t0);
    EXPECT_LE(cpc_buf_hrtime(cpc, buf), t1);
    EXPECT_GT(cpc_buf_hrtime(cpc, buf), cpc_buf_hrtime(cpc, before));
    cpc_buf_sub(cpc, diff, buf, before);
    // The on-CPU time of the set, as task-clock counted it, at a TSC
    // between 0.5 and 10 GHz.
    double ticks = double(cpc_buf_tick(cpc, diff));
    uint64_t on_cpu_ns = 0;
    ASSERT_EQ(cpc_buf_get(cpc, diff, 0, &on_cpu_ns), 0);
    EXPECT_GT(ticks, 0.5 * double(on_cpu_ns)) << ticks << " ticks in " << on_cpu_ns << " ns";
    EXPECT_LT(ticks, 10 * double(on_cpu_ns)) << ticks << " ticks in " << on_cpu_ns << " ns";
    // The tick does not advance while the set is disabled.
    ASSERT_EQ(cpc_disable(cpc), 0);
    ASSERT_EQ(cpc_set_sample(cpc, set, before), 0);
    spin_ms(50);
    ASSERT_EQ(cpc_set_sample(cpc, set, buf), 0);
    EXPECT_EQ(cpc_buf_tick(cpc, buf), cpc_buf_tick(cpc, before));
}

TEST_F(Bind, RestartResetsEveryRequestToItsPreset) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 100, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "minor-faults", 0, CPC_COUNT_USER, 0, nullptr), 1);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    cpctest::touch_pages(500);
    EXPECT_GE(value(0), 600u);
    ASSERT_EQ(cpc_request_preset(cpc, 1, 7000), 0);
    ASSERT_EQ(cpc_set_restart(cpc, set), 0);
    EXPECT_LT(value(0), 110u);
    uint64_t v1 = value(1);
    EXPECT_GE(v1, 7000u);
    EXPECT_LT(v1, 7010u);
}

TEST_F(Bind, RequestPresetAndRestartNeedABoundSet) {
    std::thread([this] {
        errno = 0;
        EXPECT_EQ(cpc_request_preset(cpc, 0, 1), -1);
        EXPECT_EQ(errno, EINVAL);
        EXPECT_EQ(cpc_set_restart(cpc, set), -1);
        EXPECT_EQ(errno, EINVAL);
        EXPECT_EQ(cpc_enable(cpc), -1);
        EXPECT_EQ(cpc_disable(cpc), -1);
    }).join();
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    EXPECT_EQ(cpc_request_preset(cpc, 1, 1), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_request_preset(cpc, -1, 1), -1);
    EXPECT_EQ(cpc_request_preset(cpc, 0, 1), 0);
}

TEST_F(Bind, BindErrors) {
    buf = cpc_buf_create(cpc, set);
    EXPECT_EQ(cpc_bind_curlwp(cpc, set, 0), -1) << "empty set";
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    EXPECT_EQ(cpc_bind_curlwp(cpc, set, 0x2), -1) << "CPC_BIND_EMT_OVF is v1 only";
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_unbind(cpc, set), -1) << "not bound";
    EXPECT_EQ(errno, EINVAL);
    cpc_buf_t *b = cpc_buf_create(cpc, set);
    EXPECT_EQ(cpc_set_sample(cpc, set, b), -1) << "not bound";
    EXPECT_EQ(errno, EINVAL);

    cpc_set_t *bad = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, bad, "page-faults", 0, 0x10 | CPC_COUNT_USER, 0, nullptr), 0)
        << "flags are checked at bind, as on illumos";
    cpctest::ErrorLog::clear();
    EXPECT_EQ(cpc_bind_curlwp(cpc, bad, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_REQ_INVALID_FLAGS);
}

TEST_F(Bind, SampleChecksBufferAndThread) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    cpc_set_t *other = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, other, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    cpc_buf_t *theirs = cpc_buf_create(cpc, other);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    EXPECT_EQ(cpc_set_sample(cpc, set, theirs), -1);
    EXPECT_EQ(errno, EINVAL);
    // Only the thread that bound a set samples it (cpc_buf_create(3CPC)).
    std::thread([this] {
        EXPECT_EQ(cpc_set_sample(cpc, set, buf), -1);
        EXPECT_EQ(errno, EINVAL);
    }).join();
    EXPECT_EQ(cpc_set_sample(cpc, set, buf), 0);
}

TEST_F(Bind, EnableDisable) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    EXPECT_EQ(cpc_enable(cpc), -1) << "already counting";
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(cpc_disable(cpc), 0);
    EXPECT_EQ(cpc_disable(cpc), -1);
    EXPECT_EQ(errno, EINVAL);
    uint64_t v0 = value(0);
    cpctest::touch_pages(500);
    EXPECT_EQ(value(0), v0) << "a disabled set does not count";
    ASSERT_EQ(cpc_enable(cpc), 0);
    cpctest::touch_pages(500);
    EXPECT_GE(value(0), v0 + 500);
}

TEST_F(Bind, NewBindReplacesTheThreadsPreviousSet) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    cpc_set_t *second = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, second, "minor-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    int before = cpctest::perf_fds();
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    int one = cpctest::perf_fds();
    ASSERT_EQ(cpc_bind_curlwp(cpc, second, 0), 0);
    EXPECT_EQ(cpctest::perf_fds(), one) << "the first binding's counters are released";
    buf = cpc_buf_create(cpc, set);
    EXPECT_EQ(cpc_set_sample(cpc, set, buf), -1);
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(cpc_unbind(cpc, second), 0);
    EXPECT_EQ(cpctest::perf_fds(), before);
}

TEST_F(Bind, CountingSystemNeedsPrivilegeWhenParanoid) {
    int rc = cpctest::in_child([] {
        cpc_t *c = cpc_open(CPC_VER_CURRENT);
        if (setresuid(65534, 65534, 65534) != 0)
            return 3;
        FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
        int level = 2;
        if (f) {
            if (fscanf(f, "%d", &level) != 1)
                level = 2;
            fclose(f);
        }
        if (level < 2)
            return 4;
        cpc_seterrhndlr(c, cpctest::ErrorLog::handler);
        cpc_set_t *s = cpc_set_create(c);
        if (cpc_set_add_request(c, s, "page-faults", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                                nullptr) != 0)
            return 5;
        if (cpc_bind_curlwp(c, s, 0) != -1)
            return 6;
        if (errno != EACCES)
            return 7;
        return cpctest::ErrorLog::last() == CPC_ATTR_REQUIRES_PRIVILEGE ? 0 : 8;
    });
    if (rc == 4)
        GTEST_SKIP() << "perf_event_paranoid < 2: unprivileged kernel counting is allowed";
    EXPECT_EQ(rc, 0);
}

TEST_F(Bind, ForkChildDoesNotInheritTheBinding) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    uint64_t v0 = value(0);
    int rc = cpctest::in_child([this] {
        if (cpctest::perf_fds() != 0)
            return 1;
        if (cpc_set_sample(cpc, set, buf) != -1 || errno != EINVAL)
            return 2;
        cpctest::touch_pages(2000); // must not reach the parent's counter
        return 0;
    });
    EXPECT_EQ(rc, 0);
    uint64_t v1 = value(0);
    EXPECT_LT(v1 - v0, 500u) << "the child's faults were counted for the parent";
    cpctest::touch_pages(100);
    EXPECT_GE(value(0), v1 + 100) << "the parent still counts after the fork";
}

TEST_F(Bind, ExecDropsTheCountersAndLeaksNoDescriptor) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    ASSERT_GT(cpctest::perf_fds(), 0);
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 1);
        execl("/bin/sh", "sh", "-c", "ls -l /proc/$$/fd", static_cast<char *>(nullptr));
        _exit(127);
    }
    close(pipefd[1]);
    std::string out;
    char chunk[4096];
    ssize_t n;
    while ((n = read(pipefd[0], chunk, sizeof chunk)) > 0)
        out.append(chunk, n);
    close(pipefd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << out;
    EXPECT_EQ(out.find("perf_event"), std::string::npos) << out;
}

// ---- Hardware counters: these skip, saying why, where there is no PMU.

TEST_F(Bind, HardwareCountsInstructions) {
    SKIP_WITHOUT_PMU();
    ASSERT_EQ(cpc_set_add_request(cpc, set, "instructions", 0, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    uint64_t v0 = value(0);
    volatile unsigned long x = 0;
    for (int i = 0; i < 1000000; ++i)
        x = x + i;
    EXPECT_GT(value(0) - v0, 1000000u);
}

TEST_F(Bind, SetLargerThanTheCountersFailsAsAWhole) {
    SKIP_WITHOUT_PMU();
    // More hardware events than the processor has counters: the set is one
    // group, so it must be refused rather than multiplexed.
    uint_t n = cpc_npic(cpc) + 4;
    const char *events[] = {"branch-instructions", "branch-misses", "cache-references",
                            "cache-misses"};
    for (uint_t i = 0; i < n; ++i)
        ASSERT_GE(cpc_set_add_request(cpc, set, events[i % 4], 0, CPC_COUNT_USER, 0, nullptr), 0);
    cpctest::ErrorLog::clear();
    EXPECT_EQ(cpc_bind_curlwp(cpc, set, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_RESOURCE_UNAVAIL);
}

TEST_F(Bind, MultiplexingIsReportedNotScaled) {
    SKIP_WITHOUT_PMU();
    // A pinned group of another user takes the general-purpose counters
    // first; a set that needs them too is then only partly scheduled.
    uint_t n = cpc_npic(cpc);
    std::vector<int> fds;
    for (uint_t i = 0; i < n; ++i) {
        perf_event_attr a{};
        a.size = sizeof a;
        a.type = PERF_TYPE_HARDWARE;
        a.config = PERF_COUNT_HW_BRANCH_MISSES;
        a.pinned = i == 0;
        a.exclude_kernel = 1;
        int fd =
            static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, fds.empty() ? -1 : fds[0], 0));
        if (fd < 0)
            break;
        fds.push_back(fd);
    }
    for (int i = 0; i < 3; ++i)
        ASSERT_GE(cpc_set_add_request(cpc, set, "cache-misses", 0, CPC_COUNT_USER, 0, nullptr), 0);
    buf = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_curlwp(cpc, set, 0), 0);
    spin_ms(100);
    cpctest::ErrorLog::clear();
    int rc = cpc_set_sample(cpc, set, buf);
    for (int fd : fds)
        close(fd);
    if (rc == 0)
        GTEST_SKIP() << "the kernel fitted both groups on this processor's counters";
    EXPECT_EQ(errno, EAGAIN);
}
