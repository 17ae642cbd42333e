// SPDX-License-Identifier: MIT
// Sets, requests, buffers and their errors.
#include "tests/libcpc/helpers.h"

#include <cerrno>
#include <cstring>

namespace {

struct Sets : ::testing::Test {
    cpc_t *cpc = nullptr;
    void SetUp() override {
        cpc = cpc_open(CPC_VER_CURRENT);
        ASSERT_NE(cpc, nullptr);
        cpc_seterrhndlr(cpc, cpctest::ErrorLog::handler);
        cpctest::ErrorLog::clear();
    }
    void TearDown() override { cpc_close(cpc); }

    int add(cpc_set_t *s, const char *ev, uint64_t preset = 0, uint_t flags = CPC_COUNT_USER,
            std::vector<cpc_attr_t> attrs = {}) {
        return cpc_set_add_request(cpc, s, ev, preset, flags, static_cast<uint_t>(attrs.size()),
                                   attrs.empty() ? nullptr : attrs.data());
    }
};

struct Walked {
    int index;
    std::string event;
    uint64_t preset;
    uint_t flags;
    std::vector<std::pair<std::string, uint64_t>> attrs;
};

} // namespace

TEST_F(Sets, AddReturnsIndexesInOrder) {
    cpc_set_t *s = cpc_set_create(cpc);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(add(s, "page-faults"), 0);
    EXPECT_EQ(add(s, "context-switches"), 1);
    EXPECT_EQ(add(s, "task-clock"), 2);
    EXPECT_EQ(cpc_set_destroy(cpc, s), 0);
}

TEST_F(Sets, UnknownEventIsInvalidEvent) {
    cpc_set_t *s = cpc_set_create(cpc);
    errno = 0;
    EXPECT_EQ(add(s, "EC_ref"), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_EVENT);
    std::string long_name(CPC_MAX_EVENT_LEN + 10, 'x');
    EXPECT_EQ(add(s, long_name.c_str()), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(add(s, nullptr), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Sets, HardwareEventWithoutPmuSaysSo) {
    if (cpctest::has_hardware_pmu())
        GTEST_SKIP() << "this machine has a hardware PMU; the no-PMU message cannot show";
    cpc_set_t *s = cpc_set_create(cpc);
    for (const char *ev : {"cycles", "instructions", "cache-misses", "PAPI_tot_ins", "0x1c2"}) {
        cpctest::ErrorLog::clear();
        EXPECT_EQ(add(s, ev), -1) << ev;
        EXPECT_EQ(errno, EINVAL);
        ASSERT_FALSE(cpctest::ErrorLog::messages.empty()) << ev;
        EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_EVENT) << ev;
    }
    cpctest::ErrorLog::clear();
    add(s, "cycles");
    EXPECT_NE(cpctest::ErrorLog::messages[0].find("has none"), std::string::npos)
        << cpctest::ErrorLog::messages[0];
}

TEST_F(Sets, AttributeErrors) {
    cpc_set_t *s = cpc_set_create(cpc);
    char bogus[] = "frobnicate", picnum[] = "picnum", empty[] = "";
    EXPECT_EQ(add(s, "page-faults", 0, CPC_COUNT_USER, {{bogus, 1}}), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_ATTRIBUTE);
    EXPECT_EQ(add(s, "page-faults", 0, CPC_COUNT_USER, {{empty, 1}}), -1);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_ATTRIBUTE);
    EXPECT_EQ(add(s, "page-faults", 0, CPC_COUNT_USER, {{picnum, cpc_npic(cpc)}}), -1);
    EXPECT_EQ(cpctest::ErrorLog::last(), CPC_INVALID_PICNUM);
    EXPECT_EQ(add(s, "page-faults", 0, CPC_COUNT_USER, {{picnum, 0}}), 0);
}

TEST_F(Sets, WalkRequestsNewestFirstWithAttributes) {
    cpc_set_t *s = cpc_set_create(cpc);
    char picnum[] = "picnum";
    ASSERT_EQ(add(s, "page-faults", 7, CPC_COUNT_USER), 0);
    ASSERT_EQ(
        add(s, "task-clock", UINT64_MAX - 5, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, {{picnum, 1}}),
        1);
    std::vector<Walked> seen;
    cpc_walk_requests(cpc, s, &seen,
                      [](void *arg, int i, const char *ev, uint64_t preset, uint_t flags,
                         int nattrs, const cpc_attr_t *attrs) {
                          Walked w{i, ev, preset, flags, {}};
                          for (int k = 0; k < nattrs; ++k)
                              w.attrs.push_back({attrs[k].ca_name, attrs[k].ca_val});
                          static_cast<std::vector<Walked> *>(arg)->push_back(w);
                      });
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].index, 1);
    EXPECT_EQ(seen[0].event, "task-clock");
    EXPECT_EQ(seen[0].preset, UINT64_MAX - 5);
    EXPECT_EQ(seen[0].flags, unsigned(CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT));
    ASSERT_EQ(seen[0].attrs.size(), 1u);
    EXPECT_EQ(seen[0].attrs[0].first, "picnum");
    EXPECT_EQ(seen[0].attrs[0].second, 1u);
    EXPECT_EQ(seen[1].index, 0);
    EXPECT_EQ(seen[1].preset, 7u);
    EXPECT_TRUE(seen[1].attrs.empty());
}

TEST_F(Sets, SetRequestPresetChangesTheNextBind) {
    cpc_set_t *s = cpc_set_create(cpc);
    ASSERT_EQ(add(s, "page-faults", 0), 0);
    EXPECT_EQ(cpc_set_request_preset(cpc, s, 0, 1000000), 0);
    EXPECT_EQ(cpc_set_request_preset(cpc, s, 1, 5), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_set_request_preset(cpc, s, -1, 5), -1);
    cpc_buf_t *b = cpc_buf_create(cpc, s);
    ASSERT_EQ(cpc_bind_curlwp(cpc, s, 0), 0);
    ASSERT_EQ(cpc_set_sample(cpc, s, b), 0);
    uint64_t v = 0;
    cpc_buf_get(cpc, b, 0, &v);
    EXPECT_GE(v, 1000000u);
    EXPECT_LT(v, 1000000u + 1000);
}

TEST_F(Sets, BoundSetTakesNoRequests) {
    cpc_set_t *s = cpc_set_create(cpc);
    ASSERT_EQ(add(s, "page-faults"), 0);
    ASSERT_EQ(cpc_bind_curlwp(cpc, s, 0), 0);
    EXPECT_EQ(add(s, "task-clock"), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_unbind(cpc, s), 0);
    EXPECT_EQ(add(s, "task-clock"), 1);
}

TEST_F(Sets, ForeignAndDestroyedSetsAreInvalid) {
    cpc_t *other = cpc_open(CPC_VER_CURRENT);
    cpc_set_t *theirs = cpc_set_create(other);
    EXPECT_EQ(add(theirs, "page-faults"), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_set_destroy(cpc, theirs), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_buf_create(cpc, theirs), nullptr);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_bind_curlwp(cpc, theirs, 0), -1);
    EXPECT_EQ(errno, EINVAL);
    cpc_close(other);

    cpc_set_t *s = cpc_set_create(cpc);
    EXPECT_EQ(cpc_set_destroy(cpc, s), 0);
    EXPECT_EQ(cpc_set_destroy(cpc, s), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Sets, BufferArithmetic) {
    cpc_set_t *s = cpc_set_create(cpc);
    ASSERT_EQ(add(s, "page-faults"), 0);
    ASSERT_EQ(add(s, "task-clock"), 1);
    cpc_buf_t *a = cpc_buf_create(cpc, s), *b = cpc_buf_create(cpc, s), *d = cpc_buf_create(cpc, s);
    ASSERT_EQ(cpc_buf_set(cpc, a, 0, 10), 0);
    ASSERT_EQ(cpc_buf_set(cpc, a, 1, 3), 0);
    ASSERT_EQ(cpc_buf_set(cpc, b, 0, 4), 0);
    ASSERT_EQ(cpc_buf_set(cpc, b, 1, 5), 0);
    uint64_t v = 0;
    cpc_buf_sub(cpc, d, a, b);
    cpc_buf_get(cpc, d, 0, &v);
    EXPECT_EQ(v, 6u);
    cpc_buf_get(cpc, d, 1, &v);
    EXPECT_EQ(v, uint64_t(3) - 5); // modulo 2^64, as the counters are
    cpc_buf_add(cpc, d, a, b);
    cpc_buf_get(cpc, d, 0, &v);
    EXPECT_EQ(v, 14u);
    cpc_buf_copy(cpc, d, b);
    cpc_buf_get(cpc, d, 1, &v);
    EXPECT_EQ(v, 5u);
    cpc_buf_zero(cpc, d);
    cpc_buf_get(cpc, d, 0, &v);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(cpc_buf_hrtime(cpc, d), 0);
    EXPECT_EQ(cpc_buf_tick(cpc, d), 0u);
    EXPECT_EQ(cpc_buf_get(cpc, d, 2, &v), -1);
    EXPECT_EQ(errno, EINVAL);
    EXPECT_EQ(cpc_buf_set(cpc, d, -1, 1), -1);
    EXPECT_EQ(cpc_buf_destroy(cpc, d), 0);
    EXPECT_EQ(cpc_buf_destroy(cpc, d), -1);
    EXPECT_EQ(errno, EINVAL);
}

TEST_F(Sets, BufferOfAnotherShapeIsLeftAlone) {
    cpc_set_t *one = cpc_set_create(cpc), *two = cpc_set_create(cpc);
    add(one, "page-faults");
    add(two, "page-faults");
    add(two, "task-clock");
    cpc_buf_t *a = cpc_buf_create(cpc, one), *b = cpc_buf_create(cpc, two);
    cpc_buf_set(cpc, a, 0, 42);
    cpc_buf_set(cpc, b, 0, 7);
    cpc_buf_copy(cpc, a, b);
    uint64_t v = 0;
    cpc_buf_get(cpc, a, 0, &v);
    EXPECT_EQ(v, 42u);
}
