// SPDX-License-Identifier: MIT
// Sampling rates and periods bounded by what the kernel and the machine
// deliver: the rules with the machine injected, the measurement itself,
// and `cpcprof record` refusing, at once, periods that used to never end.
#include "profiler/record/period_bounds.h"
#include "profiler/record/signal_cost.h"
#include "tests/record/record_harness.h"

#include <libcpc.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <time.h>

#include <fstream>
#include <regex>
#include <string>

using namespace cpcprof::test;
namespace rec = cpcprof::record;

namespace {

// A measurement that says the round trip costs ns, counting its calls.
struct FakeCost {
    double ns;
    int calls = 0;
    std::optional<rec::OverflowCost> operator()(std::string *) {
        ++calls;
        return rec::OverflowCost{ns, 500, 20e6};
    }
};

bool check(uint64_t period, std::optional<uint64_t> max_rate, FakeCost &cost, std::string *error,
           bool from_freq = false) {
    return rec::check_clock_period("cpu-clock", period, from_freq, max_rate, std::ref(cost), error);
}

double thread_cpu_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

} // namespace

TEST(PeriodBounds, LongPeriodsMeasureNothing) {
    FakeCost cost{1e9}; // it would refuse everything
    std::string error;
    EXPECT_TRUE(check(rec::kMeasureBelowNs, 100000, cost, &error)) << error;
    EXPECT_TRUE(check(1000000, 100000, cost, &error)) << error;
    EXPECT_EQ(cost.calls, 0);
}

TEST(PeriodBounds, TwiceTheRoundTripIsTheFloor) {
    FakeCost cost{16000};
    std::string error;
    EXPECT_FALSE(check(10000, 100000, cost, &error));
    EXPECT_NE(error.find("a cpu-clock period of 10 us is too short"), std::string::npos) << error;
    EXPECT_NE(error.find("one overflow costs 16 us"), std::string::npos) << error;
    EXPECT_NE(
        error.find("the lowest period accepted here is 32 us (-c 32000, or -F 31250 at most)"),
        std::string::npos)
        << error;
    EXPECT_FALSE(check(31999, 100000, cost, &error));
    EXPECT_TRUE(check(32000, 100000, cost, &error)) << error;
    EXPECT_FALSE(check(1, 100000, cost, &error));
    EXPECT_NE(error.find("period of 1 ns"), std::string::npos) << error;
    EXPECT_FALSE(check(10000, 100000, cost, &error, true));
    EXPECT_NE(error.find("-F 100000 (a cpu-clock period of 10 us) is too short"), std::string::npos)
        << error;
}

// Accepted, but the round trips take a large share of the CPU: said, with
// the period from which they cost under 10 %.
TEST(PeriodBounds, AnExpensivePeriodIsAcceptedWithAWarning) {
    FakeCost cost{16000};
    std::string error, warning;
    EXPECT_TRUE(rec::check_clock_period("cpu-clock", 40000, false, 100000, std::ref(cost), &error,
                                        &warning))
        << error;
    EXPECT_NE(warning.find("at a period of 40 us sampling takes about 40% of the program's CPU"),
              std::string::npos)
        << warning;
    EXPECT_NE(warning.find("periods of 160 us and up cost under 10%"), std::string::npos)
        << warning;
    warning.clear();
    EXPECT_TRUE(rec::check_clock_period("cpu-clock", 99000, false, 100000, std::ref(cost), &error,
                                        &warning));
    EXPECT_NE(warning.find("about 16%"), std::string::npos) << warning;
    FakeCost cheap{1000};
    warning.clear();
    EXPECT_TRUE(rec::check_clock_period("cpu-clock", 50000, false, 100000, std::ref(cheap), &error,
                                        &warning));
    EXPECT_EQ(warning, "") << "2 % of the CPU is not worth a word";
}

TEST(PeriodBounds, TheKernelsLimitsWhenSignalsAreCheap) {
    FakeCost cost{1000};
    std::string error;
    EXPECT_FALSE(check(5000, 100000, cost, &error));
    EXPECT_NE(error.find("the kernel fires cpu-clock at most every 10 us"), std::string::npos)
        << error;
    EXPECT_TRUE(check(10000, 100000, cost, &error)) << error;
    // A kernel that lowered its maximum rate to 25 kHz: 40 us.
    EXPECT_FALSE(check(30000, 25000, cost, &error));
    EXPECT_NE(error.find("perf_event_max_sample_rate"), std::string::npos) << error;
    EXPECT_NE(error.find("accepted here is 40 us"), std::string::npos) << error;
    EXPECT_TRUE(check(40000, 25000, cost, &error)) << error;
}

TEST(PeriodBounds, AFailedMeasurementRefuses) {
    std::string error;
    auto failing = [](std::string *why) -> std::optional<rec::OverflowCost> {
        *why = "no counters";
        return std::nullopt;
    };
    EXPECT_FALSE(rec::check_clock_period("task-clock", 20000, false, 100000, failing, &error));
    EXPECT_NE(error.find("no counters"), std::string::npos) << error;
}

TEST(PeriodBounds, FrequencyAgainstTheKernelsMaximum) {
    std::string error;
    EXPECT_TRUE(rec::check_frequency(100000, 100000, &error));
    EXPECT_TRUE(rec::check_frequency(1000000, std::nullopt, &error));
    EXPECT_FALSE(rec::check_frequency(100001, 100000, &error));
    EXPECT_NE(error.find("maximum frequency rate (100000 Hz) exceeded"), std::string::npos)
        << error;
}

// The real measurement: a cost, from enough overflows, within its CPU
// budget, and SIGEMT's disposition as it was.
TEST(OverflowCost, MeasuredInItsBudget) {
    struct sigaction before {
    }, after{};
    ASSERT_EQ(sigaction(SIGEMT, nullptr, &before), 0);
    std::string error;
    double t0 = thread_cpu_ns();
    auto c = rec::measure_overflow_cost(&error);
    double spent = thread_cpu_ns() - t0;
    ASSERT_TRUE(c) << error;
    std::printf("overflow round trip: %.0f ns over %llu overflows, %.1f ms of CPU\n",
                c->ns_per_overflow, static_cast<unsigned long long>(c->overflows), spent / 1e6);
    EXPECT_GT(c->ns_per_overflow, 0);
    EXPECT_GT(c->overflows, 50u);
    EXPECT_LT(spent, 100e6) << "the measurement is to take about 20-30 ms of CPU";
    EXPECT_GT(rec::sustainable_rate(*c), 0);
    ASSERT_EQ(sigaction(SIGEMT, nullptr, &after), 0);
    EXPECT_EQ(after.sa_handler, before.sa_handler);
}

namespace {

RunResult record_short(const TempDir &dir, const std::vector<std::string> &opt,
                       const std::vector<std::string> &command) {
    std::vector<std::string> args{"record", "-q"};
    args.insert(args.end(), opt.begin(), opt.end());
    for (const char *a : {"--no-symbolize", "-o", "out.cpcprof", "--"})
        args.push_back(a);
    args.insert(args.end(), command.begin(), command.end());
    return run_cpcprof(dir, args);
}

} // namespace

// Periods below what the kernel delivers at all are refused before the
// command starts, naming the lowest accepted period.
TEST(RecordBounds, PeriodsBelowTheKernelsAreRefusedAtOnce) {
    const std::vector<std::vector<std::string>> shorts = {{"-e", "cpu-clock", "-F", "200000"},
                                                          {"-e", "cpu-clock", "-c", "1"},
                                                          {"-e", "cpu-clock,5000"},
                                                          {"-e", "task-clock,1000"}};
    for (const auto &opt : shorts) {
        TempDir dir;
        RunResult r = record_short(dir, opt, {"sh", "-c", "echo ran"});
        ASSERT_FALSE(r.timed_out) << opt[0] << " " << opt[1];
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_TRUE(r.err.find("the lowest period accepted here is") != std::string::npos ||
                    r.err.find("maximum frequency rate") != std::string::npos)
            << r.err;
        EXPECT_EQ(r.out, "") << "the command ran";
    }
}

// The periods of the report, which never finished: refused here (one
// overflow costs more than 5 us on this VM), or, on a machine whose
// signals are cheap enough, recorded to the end.  Never a recording that
// does not end.
TEST(RecordBounds, TheReportedPeriodsAreRefusedOrFinish) {
    const std::vector<std::vector<std::string>> shorts = {{"-e", "cpu-clock", "-F", "100000"},
                                                          {"-e", "cpu-clock,10000"}};
    for (const auto &opt : shorts) {
        TempDir dir;
        RunResult r = record_short(dir, opt, {WORKLOAD_FP, "--seconds", "0.05"});
        ASSERT_FALSE(r.timed_out) << opt[0] << " " << opt[1];
        bool refused = r.err.find("the lowest period accepted here is") != std::string::npos;
        std::printf("%s %s: %s\n", opt[opt.size() - 2].c_str(), opt.back().c_str(),
                    refused ? "refused" : "recorded");
        if (refused) {
            EXPECT_EQ(r.status, 1) << r.err;
            EXPECT_EQ(r.out, "") << "the command ran";
        } else {
            EXPECT_EQ(r.status, 0) << r.err;
        }
    }
}

TEST(RecordBounds, FrequencyAboveTheKernelsMaximumIsRefused) {
    std::ifstream in("/proc/sys/kernel/perf_event_max_sample_rate");
    uint64_t max = 0;
    if (!(in >> max) || max == 0)
        GTEST_SKIP() << "/proc/sys/kernel/perf_event_max_sample_rate cannot be read";
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-F", std::to_string(max + 1), "-o", "out.cpcprof",
                                    "--", "sh", "-c", "echo ran"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("maximum frequency rate (" + std::to_string(max) + " Hz) exceeded"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
}
