// SPDX-License-Identifier: MIT
// The agent's sample ring: records come out whole, in order, across the
// wrap-around; a full ring refuses rather than overwrites; one producer and
// one consumer on different threads lose nothing.
#include "profiler/agent/ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

using cpcprof::agent::Ring;

namespace {

struct Fixture {
    std::vector<char> mem;
    Ring ring;
    explicit Fixture(size_t bytes) : mem(bytes) { ring.attach(mem.data(), bytes); }
};

bool push(Ring &r, uint64_t seq, size_t words) {
    void *p = r.reserve(words * 8);
    if (p == nullptr)
        return false;
    auto *w = static_cast<uint64_t *>(p);
    for (size_t i = 0; i < words; ++i)
        w[i] = seq * 1000 + i;
    r.commit(words * 8);
    return true;
}

} // namespace

TEST(Ring, RecordsComeBackWholeAndInOrderAcrossTheWrap) {
    Fixture f(1024);
    uint64_t next_in = 0, next_out = 0;
    for (int round = 0; round < 200; ++round) {
        size_t words = 1 + round % 13;
        while (push(f.ring, next_in, words))
            ++next_in;
        size_t n = f.ring.consume([&](const char *p, size_t len) {
            ASSERT_EQ(len % 8, 0u);
            auto *w = reinterpret_cast<const uint64_t *>(p);
            for (size_t i = 0; i < len / 8; ++i)
                ASSERT_EQ(w[i], next_out * 1000 + i);
            ++next_out;
        });
        EXPECT_GT(n, 0u);
    }
    EXPECT_EQ(next_in, next_out);
    EXPECT_TRUE(f.ring.empty());
}

// The handler reserves room for the deepest stack and writes the record in
// place: what it commits is only what it wrote.
TEST(Ring, ShorterCommitKeepsTheSpaceItDidNotUse) {
    Fixture f(1024);
    for (uint64_t seq = 0; seq < 100; ++seq) {
        auto *w = static_cast<uint64_t *>(f.ring.reserve(64 * 8));
        ASSERT_NE(w, nullptr) << "record " << seq;
        w[0] = seq;
        w[1] = ~seq;
        f.ring.commit(2 * 8);
        size_t n = f.ring.consume([&](const char *p, size_t len) {
            ASSERT_EQ(len, 16u);
            EXPECT_EQ(reinterpret_cast<const uint64_t *>(p)[0], seq);
            EXPECT_EQ(reinterpret_cast<const uint64_t *>(p)[1], ~seq);
        });
        EXPECT_EQ(n, 1u);
    }
    EXPECT_TRUE(f.ring.empty());
}

TEST(Ring, FullRingRefusesInsteadOfOverwriting) {
    Fixture f(256);
    int pushed = 0;
    while (push(f.ring, pushed, 3))
        ++pushed;
    EXPECT_GT(pushed, 0);
    EXPECT_FALSE(push(f.ring, 99, 3));
    int seen = 0;
    f.ring.consume([&](const char *p, size_t) {
        EXPECT_EQ(reinterpret_cast<const uint64_t *>(p)[0], uint64_t(seen) * 1000);
        ++seen;
    });
    EXPECT_EQ(seen, pushed);
}

TEST(Ring, ProducerAndConsumerThreadsLoseNothing) {
    Fixture f(64 * 1024);
    constexpr uint64_t kRecords = 200000;
    std::atomic<uint64_t> refused{0};
    std::thread producer([&] {
        for (uint64_t i = 0; i < kRecords;) {
            if (push(f.ring, i, 1 + i % 7))
                ++i;
            else
                refused.fetch_add(1);
        }
    });
    uint64_t expect = 0;
    while (expect < kRecords) {
        f.ring.consume([&](const char *p, size_t len) {
            auto *w = reinterpret_cast<const uint64_t *>(p);
            ASSERT_EQ(len / 8, 1 + expect % 7);
            ASSERT_EQ(w[0], expect * 1000);
            ++expect;
        });
    }
    producer.join();
    EXPECT_EQ(expect, kRecords);
}
