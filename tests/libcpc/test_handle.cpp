// SPDX-License-Identifier: MIT
// cpc_open, cpc_close, the processor description, walkers, error reporting.
#include "libcpc/src/machine.h"
#include "tests/libcpc/helpers.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace {

struct Handle : ::testing::Test {
    cpc_t *cpc = nullptr;
    void SetUp() override {
        cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc, nullptr) << std::strerror(errno);
        cpctest::ErrorLog::clear();
    }
    void TearDown() override { cpc_close(cpc); }
};

std::vector<std::string> walk_all(cpc_t *cpc, bool generic) {
    std::vector<std::string> v;
    auto fn = [](void *arg, const char *e) {
        static_cast<std::vector<std::string> *>(arg)->push_back(e);
    };
    if (generic)
        cpc_walk_generic_events_all(cpc, &v, fn);
    else
        cpc_walk_events_all(cpc, &v, fn);
    return v;
}

bool contains(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST(Open, RejectsOtherVersions) {
    errno = 0;
    EXPECT_EQ(cpc_open(1), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_open(3), nullptr);
    EXPECT_EQ(errno, EINVAL);
}

TEST(Open, ConstantsHaveIllumosValues) {
    EXPECT_EQ(CPC_VER_CURRENT, 2);
    EXPECT_EQ(CPC_BIND_LWP_INHERIT, 0x1);
    EXPECT_EQ(CPC_OVF_NOTIFY_EMT, 0x1);
    EXPECT_EQ(CPC_COUNT_USER, 0x2);
    EXPECT_EQ(CPC_COUNT_SYSTEM, 0x4);
    EXPECT_EQ(CPC_COUNT_HV, 0x8);
    EXPECT_EQ(CPC_CAP_OVERFLOW_INTERRUPT, 0x1);
    EXPECT_EQ(CPC_CAP_OVERFLOW_PRECISE, 0x2);
    EXPECT_EQ(CPC_INVALID_EVENT, 1);
    EXPECT_EQ(CPC_HV_NO_ACCESS, 11);
}

TEST(Open, FailsOnlyWhenNoCounterOpens) {
    // As an unprivileged user with perf_event_paranoid <= 2, software
    // counters of one's own threads still open: cpc_open must succeed.
    int rc = cpctest::in_child([] {
        if (setresuid(65534, 65534, 65534) != 0)
            return 3;
        cpc_t *c = cpc_open(CPC_VER_CURRENT);
        return c != nullptr ? 0 : 1;
    });
    EXPECT_EQ(rc, 0);
}

TEST_F(Handle, DescribesTheProcessor) {
    ASSERT_NE(cpc_cciname(cpc), nullptr);
    ASSERT_NE(cpc_cpuref(cpc), nullptr);
    EXPECT_GT(std::strlen(cpc_cciname(cpc)), 5u);
    EXPECT_LT(std::strlen(cpc_cciname(cpc)), size_t(CPC_MAX_IMPL_NAME));
    EXPECT_LT(std::strlen(cpc_cpuref(cpc)), size_t(CPC_MAX_CPUREF));
    EXPECT_GT(cpc_npic(cpc), 0u);
    EXPECT_TRUE(cpc_caps(cpc) & CPC_CAP_OVERFLOW_PRECISE);
    // Software overflow sampling works on every kernel this library supports.
    EXPECT_TRUE(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT);
    if (!cpctest::has_hardware_pmu()) {
        EXPECT_NE(std::strstr(cpc_cciname(cpc), "software events only"), nullptr)
            << cpc_cciname(cpc);
        EXPECT_NE(std::strstr(cpc_cpuref(cpc), "no accessible hardware"), nullptr);
    }
}

TEST_F(Handle, WalksWhatThisMachineCounts) {
    auto events = walk_all(cpc, false);
    for (const char *sw : {"cpu-clock", "task-clock", "page-faults", "minor-faults", "major-faults",
                           "context-switches", "cpu-migrations"})
        EXPECT_TRUE(contains(events, sw)) << sw;
    std::set<std::string> unique(events.begin(), events.end());
    EXPECT_EQ(unique.size(), events.size()) << "walk repeats names";
    for (const std::string &e : events)
        EXPECT_NE(e.rfind("PAPI", 0), 0u) << e << " is generic";
    auto generic = walk_all(cpc, true);
    for (const std::string &e : generic)
        EXPECT_EQ(e.rfind("PAPI_", 0), 0u) << e;
    if (!cpctest::has_hardware_pmu()) {
        EXPECT_FALSE(contains(events, "cycles"));
        EXPECT_FALSE(contains(events, "cache-misses"));
        EXPECT_TRUE(generic.empty()) << "generic events need hardware counters";
    } else {
        EXPECT_TRUE(contains(generic, "PAPI_tot_ins"));
    }
    // Every listed event can be added to a set.
    cpc_set_t *set = cpc_set_create(cpc);
    for (const std::string &e : events)
        EXPECT_GE(cpc_set_add_request(cpc, set, e.c_str(), 0, CPC_COUNT_USER, 0, nullptr), 0) << e;
}

TEST_F(Handle, WalksPerCounter) {
    uint_t npic = cpc_npic(cpc);
    std::vector<std::string> on0;
    cpc_walk_events_pic(cpc, 0, &on0, [](void *arg, uint_t pic, const char *e) {
        EXPECT_EQ(pic, 0u);
        static_cast<std::vector<std::string> *>(arg)->push_back(e);
    });
    EXPECT_TRUE(contains(on0, "page-faults"));
    int calls = 0;
    errno = 0;
    cpc_walk_events_pic(cpc, npic, &calls,
                        [](void *arg, uint_t, const char *) { ++*static_cast<int *>(arg); });
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(errno, EINVAL);
    errno = 0;
    cpc_walk_generic_events_pic(
        cpc, npic + 5, &calls, [](void *arg, uint_t, const char *) { ++*static_cast<int *>(arg); });
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Handle, WalksAttributes) {
    std::vector<std::string> attrs;
    cpc_walk_attrs(cpc, &attrs, [](void *arg, const char *a) {
        static_cast<std::vector<std::string> *>(arg)->push_back(a);
    });
    EXPECT_TRUE(contains(attrs, "picnum"));
    for (const std::string &a : attrs)
        EXPECT_LT(a.size(), size_t(CPC_MAX_ATTR_LEN));
}

TEST_F(Handle, ErrorHandlerGetsSubcodeAndErrnoIsKept) {
    ASSERT_EQ(cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler), 0);
    cpc_set_t *set = cpc_set_create(cpc);
    errno = 0;
    EXPECT_EQ(cpc_set_add_request(cpc, set, "no-such-event", 0, CPC_COUNT_USER, 0, nullptr), -1);
    EXPECT_EQ(errno, EINVAL);
    ASSERT_EQ(cpctest::ErrorLog::subcodes.size(), 1u);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_EVENT);
    EXPECT_EQ(cpctest::ErrorLog::functions[0], "cpc_set_add_request");
    EXPECT_NE(cpctest::ErrorLog::messages[0].find("no-such-event"), std::string::npos);
}

TEST_F(Handle, WithoutHandlerPrintsLibcpcPrefixOnStderr) {
    int pipefd[2];
    ASSERT_EQ(pipe(pipefd), 0);
    int saved = dup(2);
    dup2(pipefd[1], 2);
    cpc_set_t *set = cpc_set_create(cpc);
    cpc_set_add_request(cpc, set, "bogus-event", 0, CPC_COUNT_USER, 0, nullptr);
    fflush(stderr);
    dup2(saved, 2);
    close(pipefd[1]);
    char buf[512] = {};
    ssize_t n = read(pipefd[0], buf, sizeof buf - 1);
    close(pipefd[0]);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf).rfind("libcpc: cpc_set_add_request: ", 0), 0u) << buf;
}

TEST_F(Handle, CloseReleasesBoundSets) {
    int before = cpctest::perf_fds();
    cpc_t *c2 = cpc_open(CPC_VER_CURRENT);
    cpc_set_t *set = cpc_set_create(c2);
    ASSERT_GE(cpc_set_add_request(c2, set, "page-faults", 0, CPC_COUNT_USER, 0, nullptr), 0);
    ASSERT_EQ(cpc_bind_curlwp(c2, set, 0), 0);
    EXPECT_GT(cpctest::perf_fds(), before);
    EXPECT_EQ(cpc_close(c2), 0);
    EXPECT_EQ(cpctest::perf_fds(), before);
}
