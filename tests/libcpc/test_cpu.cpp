// SPDX-License-Identifier: MIT
// cpc_bind_cpu: counting on one CPU for every thread.
#include "tests/libcpc/helpers.h"

#include <sched.h>
#include <sys/sysinfo.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace {

struct Cpu : ::testing::Test {
    cpc_t *cpc = nullptr;
    cpc_set_t *set = nullptr;
    void SetUp() override {
        if (geteuid() != 0)
            GTEST_SKIP() << "cpc_bind_cpu needs CAP_PERFMON or root; these tests run as uid "
                         << geteuid();
        cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc, nullptr);
        cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
        cpctest::ErrorLog::clear();
        set = cpc_set_create(cpc);
    }
    void TearDown() override {
        if (cpc)
            cpc_close(cpc);
    }
};

int64_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int last_cpu() {
    return get_nprocs() - 1;
}

} // namespace

TEST_F(Cpu, CountsOnTheCpuAndMovesTheCallerThere) {
    int cpu = last_cpu();
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
    ASSERT_EQ(cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
                                  nullptr),
              0);
    cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_cpu(cpc, cpu, set, 0), 0) << std::strerror(errno);
    EXPECT_EQ(sched_getcpu(), cpu);
    cpu_set_t now;
    sched_getaffinity(0, sizeof now, &now);
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(cpu, &now));
    // cpu-clock of a CPU runs in wall time, idle or not: what it counts
    // between two reads is the time between them, however long a busy
    // machine made the sleep.  Each read is bracketed by CLOCK_MONOTONIC,
    // to a millisecond (the clocks' reads themselves).
    int64_t a0 = mono_ns();
    ASSERT_EQ(cpc_set_sample(cpc, set, a), 0);
    int64_t a1 = mono_ns();
    usleep(100000);
    int64_t b0 = mono_ns();
    ASSERT_EQ(cpc_set_sample(cpc, set, b), 0);
    int64_t b1 = mono_ns();
    uint64_t v0, v1;
    cpc_buf_get(cpc, a, 0, &v0);
    cpc_buf_get(cpc, b, 0, &v1);
    auto counted = int64_t(v1 - v0);
    EXPECT_GE(counted, b0 - a1 - 1000000) << "between the reads: " << b0 - a1 << " to " << b1 - a0;
    EXPECT_LE(counted, b1 - a0 + 1000000) << "between the reads: " << b0 - a1 << " to " << b1 - a0;
    ASSERT_EQ(cpc_unbind(cpc, set), 0);
    sched_getaffinity(0, sizeof now, &now);
    EXPECT_TRUE(CPU_EQUAL(&now, &before)) << "affinity not restored at unbind";
}

TEST_F(Cpu, SampleAfterLeavingTheCpuIsEagain) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    cpc_buf_t *a = cpc_buf_create(cpc, set);
    ASSERT_EQ(cpc_bind_cpu(cpc, 0, set, 0), 0);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int i = 0; i < get_nprocs(); ++i)
        CPU_SET(i, &all);
    ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
    if (get_nprocs() > 1) {
        EXPECT_EQ(cpc_set_sample(cpc, set, a), -1);
        EXPECT_EQ(errno, EAGAIN);
    }
}

TEST_F(Cpu, Errors) {
    ASSERT_EQ(cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    EXPECT_EQ(cpc_bind_cpu(cpc, 100000, set, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_bind_cpu(cpc, -1, set, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_bind_cpu(cpc, 0, set, 1), -1) << "cpc_bind_cpu takes no flags";
    EXPECT_EQ(errno, EINVAL);

    cpc_set_t *ovf = cpc_set_create(cpc);
    ASSERT_EQ(cpc_set_add_request(cpc, ovf, "cpu-clock", UINT64_MAX - 1000,
                                  CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, nullptr),
              0);
    EXPECT_EQ(cpc_bind_cpu(cpc, 0, ovf, 0), -1);
    EXPECT_EQ(errno, ENOTSUP);
}

TEST_F(Cpu, NeedsPrivilege) {
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int level = 2;
    if (f != nullptr) {
        if (fscanf(f, "%d", &level) != 1)
            level = 2;
        fclose(f);
    }
    if (level <= 0)
        GTEST_SKIP() << "perf_event_paranoid is " << level << ": CPU counting needs no privilege";
    int rc = cpctest::in_child([] {
        cpc_t *c = cpc_open(CPC_VER_CURRENT);
        cpc_seterrhndlr(c, cpctest::ErrorLog::handler);
        cpc_set_t *s = cpc_set_create(c);
        if (cpc_set_add_request(c, s, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr) != 0)
            return 2;
        if (setresuid(65534, 65534, 65534) != 0)
            return 3;
        if (cpc_bind_cpu(c, 0, s, 0) != -1)
            return 4;
        if (errno != EACCES)
            return 5;
        return cpctest::ErrorLog::last() == CPC_ATTR_REQUIRES_PRIVILEGE ? 0 : 6;
    });
    EXPECT_EQ(rc, 0);
}

TEST(CpuOnline, ReadsSysfs) {
    const char *data = std::getenv("CPC_TEST_DATA");
    if (data == nullptr)
        GTEST_SKIP() << "CPC_TEST_DATA is set by ctest (tests/libcpc/CMakeLists.txt)";
    std::string root = std::string(data) + "/cpus";
    EXPECT_TRUE(cpc::cpu_is_online(0, root)) << "cpu0 has no online file: always online";
    EXPECT_TRUE(cpc::cpu_is_online(1, root));
    EXPECT_FALSE(cpc::cpu_is_online(2, root));
}

// Takes a CPU offline for a moment, so it runs only when asked to.
TEST_F(Cpu, OfflineCpuIsEnosys) {
    if (std::getenv("CPC_TEST_ALLOW_HOTPLUG") == nullptr)
        GTEST_SKIP() << "set CPC_TEST_ALLOW_HOTPLUG=1 to let this test take CPU 1 offline";
    if (get_nprocs_conf() < 2)
        GTEST_SKIP() << "one CPU only: none can go offline";
    FILE *f = fopen("/sys/devices/system/cpu/cpu1/online", "w");
    if (f == nullptr || fputs("0", f) < 0 || fclose(f) != 0)
        GTEST_SKIP() << "CPU 1 cannot be taken offline here";
    ASSERT_EQ(cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER, 0, nullptr), 0);
    int rc = cpc_bind_cpu(cpc, 1, set, 0);
    int err = errno;
    f = fopen("/sys/devices/system/cpu/cpu1/online", "w");
    ASSERT_NE(f, nullptr);
    fputs("1", f);
    fclose(f);
    EXPECT_EQ(rc, -1);
    EXPECT_EQ(err, ENOSYS);
}
