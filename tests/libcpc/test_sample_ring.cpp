// SPDX-License-Identifier: MIT
// SampleRing: the group's values written by the kernel at each overflow,
// taken back without a system call, across the ring's wrap and past a full
// ring; not inherited by fork children.
#include "base/scoped_fd.h"
#include "libcpc/src/sample_ring.h"
#include "tests/libcpc/helpers.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstring>

namespace {

// page-faults sampling every `period` faults, minor-faults beside it in
// the group; no signal: the test reads the ring itself.
struct Group {
    cpcprof::base::ScopedFd leader, member;
    cpc::SampleRing ring;

    explicit Group(uint64_t period) {
        perf_event_attr a{};
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_PAGE_FAULTS;
        a.exclude_kernel = 1;
        a.sample_period = period;
        a.read_format =
            PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        cpc::SampleRing::prepare(&a);
        leader.reset(static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0)));
        perf_event_attr m{};
        m.size = sizeof m;
        m.type = PERF_TYPE_SOFTWARE;
        m.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
        m.exclude_kernel = 1;
        m.read_format = a.read_format;
        if (leader.valid())
            member.reset(
                static_cast<int>(syscall(SYS_perf_event_open, &m, 0, -1, leader.get(), 0)));
    }
    bool ok() const { return leader.valid() && member.valid(); }
};

// Words of one group sample: nr, enabled, running, two values.
constexpr size_t kWords = 5;

} // namespace

TEST(SampleRing, EmptyRingHasNoSample) {
    Group g(10);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    uint64_t v[kWords] = {};
    cpc::RingHarvest h;
    EXPECT_FALSE(g.ring.take_latest(v, kWords, &h));
    EXPECT_EQ(h.samples, 0u);
    EXPECT_EQ(h.lost, 0u);
}

// 56-byte records in a 4096-byte ring: over 300 samples the ring wraps
// three times and records straddle its end; each time the newest sample
// is the one taken, with the counts of its overflow.
TEST(SampleRing, NewestSampleAcrossTheWrap) {
    Group g(10);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    uint64_t last = 0;
    for (int k = 1; k <= 300; ++k) {
        cpctest::touch_pages(10);
        uint64_t v[kWords] = {};
        cpc::RingHarvest h;
        ASSERT_TRUE(g.ring.take_latest(v, kWords, &h)) << "sample " << k;
        EXPECT_EQ(v[0], 2u);
        EXPECT_EQ(h.samples, 1u) << "sample " << k;
        EXPECT_EQ(h.npcs, 0) << "no older sample";
        // Page faults at the overflow: a whole number of periods.
        EXPECT_EQ(v[3] % 10, 0u) << "sample " << k;
        EXPECT_GT(v[3], last) << "sample " << k;
        EXPECT_GE(v[4], v[3] - 10) << "the member's count at the overflow";
        last = v[3];
    }
    EXPECT_GE(last, 3000u);
}

// A ring nobody consumed fills up; the kernel then counts the samples it
// could not write (PERF_RECORD_LOST).  Taking consumes it all, and the
// next sample is taken as usual.
TEST(SampleRing, FullRingIsEmptiedAndGoesOn) {
    Group g(1);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    cpctest::touch_pages(2000);
    uint64_t v[kWords] = {};
    cpc::RingHarvest h;
    ASSERT_TRUE(g.ring.take_latest(v, kWords, &h));
    EXPECT_LT(v[3], 200u) << "a full ring keeps its first samples";
    EXPECT_EQ(h.npcs, cpc::RingHarvest::kMaxPcs) << "the oldest PCs are kept";
    EXPECT_TRUE(h.full) << "the ring had no room left";
    cpctest::touch_pages(1);
    uint64_t w[kWords] = {};
    cpc::RingHarvest h2;
    ASSERT_TRUE(g.ring.take_latest(w, kWords, &h2));
    EXPECT_GE(w[3], 2001u) << "the newest sample, after the lost ones";
    // Every overflow is a record or in the kernel's lost count, which it
    // writes once there is room again: with the next take.
    EXPECT_GT(h2.lost, 0u);
    EXPECT_GE(h.samples + h.lost + h2.samples + h2.lost, 2001u);
}

// Several overflows before the ring is read (as when their signals merge):
// each is counted, and the older ones' PCs are kept, oldest first.
TEST(SampleRing, EveryOverflowSinceTheLastTakeIsCounted) {
    Group g(10);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    cpctest::touch_pages(50);
    uint64_t v[kWords] = {};
    cpc::RingHarvest h;
    ASSERT_TRUE(g.ring.take_latest(v, kWords, &h));
    EXPECT_EQ(h.samples, 5u);
    EXPECT_EQ(h.lost, 0u);
    EXPECT_FALSE(h.full);
    ASSERT_EQ(h.npcs, 4);
    for (int i = 0; i < h.npcs; ++i)
        EXPECT_NE(h.pcs[i], 0u) << "the kernel's PC of overflow " << i;
    EXPECT_EQ(v[3] % 10, 0u);
    EXPECT_GE(v[3], 50u) << "the values are the newest overflow's";
}

TEST(SampleRing, SampleOfAnotherSizeIsNotTaken) {
    Group g(10);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    cpctest::touch_pages(10);
    uint64_t v[kWords + 1] = {};
    cpc::RingHarvest h;
    EXPECT_FALSE(g.ring.take_latest(v, kWords + 1, &h));
    cpctest::touch_pages(10);
    EXPECT_TRUE(g.ring.take_latest(v, kWords, &h));
}

TEST(SampleRing, ForkChildHasNoMapping) {
    Group g(10);
    ASSERT_TRUE(g.ok()) << std::strerror(errno);
    ASSERT_TRUE(g.ring.map(g.leader.get())) << std::strerror(errno);
    void *at = const_cast<void *>(g.ring.address());
    int rc = cpctest::in_child([&] {
        // madvise of an unmapped range fails with ENOMEM.
        int r = madvise(at, 4096, MADV_NORMAL);
        g.ring.forget();
        return r == -1 && errno == ENOMEM ? 0 : 1;
    });
    EXPECT_EQ(rc, 0) << "the child still maps the parent's ring";
    EXPECT_EQ(madvise(at, 4096, MADV_NORMAL), 0);
}
