// SPDX-License-Identifier: MIT
// The CI gate's statistics (share_test.h, gate.h): Student's t against
// its tables, Welch's test over runs on simulated runs whose shares vary
// from run to run as well as by sampling (false alarms at the nominal
// rate, changes of a few points caught, the sampling floor), and judge()
// on real profiles made from folded stacks with known shares.
#include "profiler/analysis/gate.h"

#include "tests/support/folded_profile.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

namespace cpcprof::analysis {
namespace {

// Two-sided 99 % and 95 % critical values from the t table.
TEST(StudentT, QuantilesOfTheTable) {
    EXPECT_NEAR(student_t_quantile(0.995, 1), 63.657, 0.01);
    EXPECT_NEAR(student_t_quantile(0.995, 2), 9.925, 0.001);
    EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604, 0.001);
    EXPECT_NEAR(student_t_quantile(0.995, 10), 3.169, 0.001);
    EXPECT_NEAR(student_t_quantile(0.975, 30), 2.042, 0.001);
    EXPECT_NEAR(student_t_quantile(0.995, 1e6), normal_quantile(0.995), 1e-4);
    EXPECT_NEAR(student_t_quantile(0.005, 4), -4.604, 0.001);
    EXPECT_NEAR(student_t_cdf(0, 3.5), 0.5, 1e-12);
    EXPECT_NEAR(student_t_cdf(2.776, 4), 0.975, 1e-4);
}

// Welch's example: means 20 and 22, variances 4 and 9 over 10 and 20
// runs: se^2 = 0.4 + 0.45, t = 2.169, df = 0.7225 / (0.01778 + 0.01066)
// = 25.4.
TEST(RunsTest, WorkedExample) {
    std::vector<double> a, b;
    // Samples with exactly those means and variances.
    for (int i = 0; i < 10; ++i)
        a.push_back(20 + (i % 2 ? 1 : -1) * std::sqrt(4.0 * 9 / 10));
    for (int i = 0; i < 20; ++i)
        b.push_back(22 + (i % 2 ? 1 : -1) * std::sqrt(9.0 * 19 / 20));
    RunsTest t = test_runs_change(a, b, 0.95);
    EXPECT_NEAR(t.change, 2, 1e-9);
    EXPECT_NEAR(t.df, 25.4, 0.1);
    EXPECT_NEAR(t.p_value, 0.0396, 0.002);
    EXPECT_TRUE(t.significant);
    EXPECT_NEAR(t.high - t.change, 2.057 * std::sqrt(0.85), 0.01);
    EXPECT_FALSE(test_runs_change(a, b, 0.99).significant);
}

TEST(RunsTest, FewerThanTwoRunsASideTellNothing) {
    std::vector<double> one = {0.3}, two = {0.3, 0.31};
    RunsTest t = test_runs_change(one, two);
    EXPECT_FALSE(t.significant);
    EXPECT_TRUE(std::isinf(t.high));
    EXPECT_FALSE(test_runs_change(two, one).significant);
}

// The floor: a function seen once in each of three runs against never
// would have no spread at all; the samples' own noise says it is nothing.
TEST(RunsTest, TheSamplingFloorKeepsAgreeingRunsHonest) {
    std::vector<double> never = {0, 0, 0}, once = {1e-4, 1e-4, 1e-4};
    EXPECT_TRUE(test_runs_change(never, once).significant) << "without a floor";
    const double p = 0.5e-4, floor = p * (1 - p) / 10000;
    EXPECT_FALSE(test_runs_change(never, once, 0.99, {floor, floor}).significant);
}

struct Rates {
    double alarms = 0;
    double covered = 0;
};

// `trials` comparisons of `runs` runs a side of n samples each; each run's
// true share is the side's share plus a normal run-to-run spread of sd
// points (the machine's doing), then its samples a binomial draw.
Rates simulate_runs(double pa, double pb, double sd, size_t runs, uint64_t n, int trials,
                    uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> spread(0, sd);
    Rates r;
    for (int i = 0; i < trials; ++i) {
        std::vector<double> a, b;
        for (auto [share, out] : {std::pair{pa, &a}, std::pair{pb, &b}})
            for (size_t k = 0; k < runs; ++k) {
                double p = std::clamp(share + spread(rng), 0.0, 1.0);
                std::binomial_distribution<uint64_t> draw(n, p);
                out->push_back(double(draw(rng)) / double(n));
            }
        const double pooled = (pa + pb) / 2, floor = pooled * (1 - pooled) / double(n);
        RunsTest t = test_runs_change(a, b, 0.99, {floor, floor});
        r.alarms += t.significant;
        r.covered += t.low <= pb - pa && pb - pa <= t.high;
    }
    r.alarms /= trials;
    r.covered /= trials;
    return r;
}

// Nothing changed, shares that vary by 1 point from run to run (ten times
// the sampling noise of 10,000 samples): about 1 % false alarms at 99 %
// with 3 and with 5 runs a side (4,000 trials: the rate's own standard
// error is 0.16 points), where a test of one run's samples alone alarms in
// about a quarter of comparisons (the difference's spread, 1.56 points,
// against its threshold of 2.576 x 0.65).
TEST(RunsTest, FalseAlarmsAtTheNominalRateDespiteRunToRunSpread) {
    for (size_t runs : {3u, 5u}) {
        SCOPED_TRACE(runs);
        Rates r = simulate_runs(0.30, 0.30, 0.01, runs, 10000, 4000, 17 + runs);
        EXPECT_LE(r.alarms, 0.016);
        EXPECT_GE(r.covered, 0.984);
    }
    // The samples alone on the same kind of runs: the spread is not noise
    // to them.
    std::mt19937_64 rng(5);
    std::normal_distribution<double> spread(0, 0.01);
    int alarms = 0;
    for (int i = 0; i < 1000; ++i) {
        std::binomial_distribution<uint64_t> a(10000, 0.30 + spread(rng)),
            b(10000, 0.30 + spread(rng));
        alarms +=
            test_share_change(double(a(rng)) / 1e4, 10000, double(b(rng)) / 1e4, 10000).significant;
    }
    EXPECT_GT(alarms, 200);
}

// A function that grows by 5 points of the run (30 % -> 35 %), runs
// varying by half a point: 3 runs a side catch it in at least 90 % of
// comparisons (t about 9 on 4 degrees of freedom, against 4.6).  Runs
// that vary by a whole point need more of them: 5 a side.
TEST(RunsTest, AGrowthOfFivePointsIsCaughtWithThreeRunsASide) {
    Rates r = simulate_runs(0.30, 0.35, 0.005, 3, 10000, 1000, 23);
    EXPECT_GE(r.alarms, 0.90);
    EXPECT_GE(r.covered, 0.98);
    EXPECT_GE(simulate_runs(0.30, 0.35, 0.01, 5, 10000, 1000, 29).alarms, 0.90);
}

// judge() on real profiles: shares from folded stacks.
struct GateProfiles : ::testing::Test {
    test::TempDir dir;
    std::vector<std::unique_ptr<Query>> held;

    ProfileRun open(const std::vector<std::string> &lines, const std::string &name) {
        std::string path =
            test::make_folded_profile(dir.path(), lines, {{"cpu-clock", 1'000'000}}, name);
        std::string error;
        auto q = Query::open(path, {}, &error);
        EXPECT_TRUE(q) << error;
        held.push_back(std::move(q));
        return {held.back().get(), path};
    }
    const FunctionDiff &function(const Comparison &c, const std::string &name) {
        for (const auto &f : c.functions)
            if (f.name == name)
                return f;
        ADD_FAILURE() << "no " << name;
        return c.functions.front();
    }
};

// One run a side: 3,000 of 10,000 samples in hot against 3,500: +5 points,
// z = 7.6: a regression above a threshold of 2, "grew" without one,
// noise for cold (100 -> 110 samples).
TEST_F(GateProfiles, OneRunASideUsesTheSamples) {
    ProfileRun base = open({"main;hot 3000", "main;cold 100", "main;rest 6900"}, "a.cpcprof");
    ProfileRun now = open({"main;hot 3500", "main;cold 110", "main;rest 6390"}, "b.cpcprof");
    Comparison c = compare_runs({base}, {now});
    GateOptions o;
    o.threshold = 2.0;
    auto hot = judge(c, function(c, "hot"), 0, true, o);
    ASSERT_TRUE(hot);
    EXPECT_EQ(hot->method, TestMethod::two_proportion);
    EXPECT_NEAR(hot->points, 5, 1e-9);
    EXPECT_EQ(hot->verdict, Verdict::regression);
    EXPECT_GT(hot->low, 3);
    EXPECT_LT(hot->high, 7);
    EXPECT_EQ(judge(c, function(c, "cold"), 0, true, o)->verdict, Verdict::noise);
    EXPECT_EQ(judge(c, function(c, "rest"), 0, true, o)->verdict, Verdict::shrank);
    o.threshold.reset();
    EXPECT_EQ(judge(c, function(c, "hot"), 0, true, o)->verdict, Verdict::grew);
    o.threshold = 6.0;
    EXPECT_TRUE(regressions(c, 0, o).empty());
    o.threshold = 2.0;
    auto r = regressions(c, 0, o);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].function->name, "hot");
}

// Three runs a side whose hot share wanders 28-32 % in both: Welch's test
// sees the spread and calls a 2-point difference of the means noise, where
// the pooled samples alone would call it a regression.
TEST_F(GateProfiles, SeveralRunsASideUseTheirSpread) {
    std::vector<ProfileRun> base, now;
    const int a[3] = {2800, 3200, 3000}, b[3] = {3000, 3400, 3200};
    for (int i = 0; i < 3; ++i) {
        base.push_back(
            open({"main;hot " + std::to_string(a[i]), "main;rest " + std::to_string(10000 - a[i])},
                 "a" + std::to_string(i) + ".cpcprof"));
        now.push_back(
            open({"main;hot " + std::to_string(b[i]), "main;rest " + std::to_string(10000 - b[i])},
                 "b" + std::to_string(i) + ".cpcprof"));
    }
    GateOptions o;
    o.threshold = 1.0;
    Comparison c = compare_runs(base, now);
    auto hot = judge(c, function(c, "hot"), 0, true, o);
    ASSERT_TRUE(hot);
    EXPECT_EQ(hot->method, TestMethod::welch);
    EXPECT_NEAR(hot->points, 2, 1e-9);
    EXPECT_EQ(hot->verdict, Verdict::noise);
    EXPECT_LT(hot->low, 0);
    // The same runs pooled into one a side.
    Comparison pooled = compare_runs({base[0]}, {now[2]});
    EXPECT_EQ(judge(pooled, function(pooled, "hot"), 0, true, o)->verdict, Verdict::regression);
}

// Metric time: runs of the same work, the hot function's cost itself.
// 3,000 -> 3,500 samples of 1 ms while the rest stays: +500 ms, 5 points
// of base's 10 s total, though its share grew by only 3.9 points.
TEST_F(GateProfiles, TimeMetricIsInPointsOfTheBaseTotal) {
    ProfileRun base = open({"main;hot 3000", "main;rest 7000"}, "a.cpcprof");
    ProfileRun now = open({"main;hot 3500", "main;rest 7000"}, "b.cpcprof");
    Comparison c = compare_runs({base}, {now});
    GateOptions o;
    o.metric = Metric::time;
    o.threshold = 4.5;
    auto hot = judge(c, function(c, "hot"), 0, true, o);
    ASSERT_TRUE(hot);
    EXPECT_EQ(hot->method, TestMethod::poisson);
    EXPECT_NEAR(hot->points, 5, 1e-9);
    EXPECT_EQ(hot->verdict, Verdict::regression);
    EXPECT_EQ(judge(c, function(c, "rest"), 0, true, o)->verdict, Verdict::noise);
    o.metric = Metric::share;
    EXPECT_NEAR(judge(c, function(c, "hot"), 0, true, o)->points, (3500 / 10500.0 - 0.3) * 100,
                1e-9);
    EXPECT_EQ(judge(c, function(c, "hot"), 0, true, o)->verdict, Verdict::grew);
}

} // namespace
} // namespace cpcprof::analysis
