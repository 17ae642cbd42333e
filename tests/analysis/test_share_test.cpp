// SPDX-License-Identifier: MIT
// The two-proportion test that tells a change of share from sampling
// noise: its quantiles, a worked example, and its behaviour on simulated
// runs (binomial draws of known shares): false alarms at the nominal rate
// when nothing changed, changes of a few points caught, intervals that
// cover the true change.
#include "profiler/analysis/share_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace cpcprof::analysis {
namespace {

TEST(ShareTest, NormalQuantiles) {
    EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-9);
    EXPECT_NEAR(normal_quantile(0.975), 1.959964, 1e-5);
    EXPECT_NEAR(normal_quantile(0.995), 2.575829, 1e-5);
    EXPECT_NEAR(normal_quantile(0.005), -2.575829, 1e-5);
}

// 30 % against 31 % of 10,000 samples each: z = 1.54, p = 0.12: noise at
// 99 %; the interval is +1 +- 1.68 points.  30 % against 33 %: z = 4.6.
TEST(ShareTest, WorkedExample) {
    ShareTest t = test_share_change(0.30, 10000, 0.31, 10000);
    EXPECT_NEAR(t.change, 0.01, 1e-12);
    EXPECT_NEAR(t.p_value, 0.1245, 0.001);
    EXPECT_FALSE(t.significant);
    EXPECT_NEAR(t.high - t.change, 2.575829 * std::sqrt(0.3 * 0.7 / 1e4 + 0.31 * 0.69 / 1e4), 1e-6);
    EXPECT_LT(t.low, 0.0);
    EXPECT_GT(t.high, 0.0);
    ShareTest big = test_share_change(0.30, 10000, 0.33, 10000);
    EXPECT_TRUE(big.significant);
    EXPECT_LT(big.p_value, 1e-5);
    EXPECT_GT(big.low, 0.0);
    // The same change on 100 samples a side is noise.
    EXPECT_FALSE(test_share_change(0.30, 100, 0.33, 100).significant);
    // A looser confidence calls more changes.
    EXPECT_TRUE(test_share_change(0.30, 10000, 0.31, 10000, 0.80).significant);
}

TEST(ShareTest, EdgesAreNeverSignificant) {
    EXPECT_FALSE(test_share_change(0.1, 0, 0.9, 1000).significant);
    EXPECT_FALSE(test_share_change(0.1, 1000, 0.9, 0).significant);
    ShareTest zero = test_share_change(0, 1000, 0, 1000);
    EXPECT_FALSE(zero.significant);
    EXPECT_EQ(zero.p_value, 1.0);
    // From nothing to something on many samples is a change.
    EXPECT_TRUE(test_share_change(0, 10000, 0.01, 10000).significant);
}

struct Rates {
    double alarms = 0, covered = 0;
};

// Over `trials` pairs of runs of n samples, true shares pa and pb: the
// rate of significant results, and how often the interval held pb - pa.
Rates simulate(double pa, double pb, uint64_t n, int trials, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::binomial_distribution<uint64_t> a(n, pa), b(n, pb);
    Rates r;
    for (int i = 0; i < trials; ++i) {
        ShareTest t =
            test_share_change(double(a(rng)) / double(n), n, double(b(rng)) / double(n), n);
        r.alarms += t.significant;
        r.covered += t.low <= pb - pa && pb - pa <= t.high;
    }
    r.alarms /= trials;
    r.covered /= trials;
    return r;
}

// Nothing changed: about 1 % false alarms at 99 % (4,000 pairs: the rate's
// own standard error is 0.16 points), over shares small and large.
TEST(ShareTest, FalseAlarmsAtTheNominalRate) {
    for (double p : {0.02, 0.30, 0.70}) {
        SCOPED_TRACE(p);
        Rates r = simulate(p, p, 10000, 4000, 7 + uint64_t(p * 100));
        EXPECT_LE(r.alarms, 0.016);
        EXPECT_GE(r.covered, 0.984);
    }
}

// A function whose share grows 30 % -> 33 % (10,000 samples a side, a 5 s
// run at 2 kHz: z = 4.6) is caught 98 % of the time in theory; 30 % -> 31 %
// mostly not: the sampling error of one run cannot tell a point apart.
TEST(ShareTest, ChangesOfAFewPointsAreCaught) {
    Rates three = simulate(0.30, 0.33, 10000, 1000, 11);
    EXPECT_GE(three.alarms, 0.96);
    EXPECT_GE(three.covered, 0.98);
    Rates one = simulate(0.30, 0.31, 10000, 1000, 13);
    EXPECT_LT(one.alarms, 0.5);
    EXPECT_GE(one.covered, 0.98);
}

} // namespace
} // namespace cpcprof::analysis
