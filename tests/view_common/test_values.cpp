// SPDX-License-Identifier: MIT
// Issue 12, point 7: impossible numbers.  A sample's value of the sampling
// event is its period and a count is below 2^63 (storage/sample_values.h):
// anything else is refused by check and by every reader.  Sums of possible
// values that do not fit 64 bits saturate: shares stay within 100 % and
// pprof's int64 values are never negative.
#include "profiler/analysis/query.h"
#include "storage/sample_values.h"
#include "tests/view_common/hostile_profiles.h"
#include "tests/view_common/pprof_text.h"
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace cpcprof::test {
namespace {

constexpr uint64_t kMax = UINT64_MAX;
constexpr uint64_t kMaxCount = storage::kMaxCountPerSample; // 2^63 - 1

TEST(SampleValues, Rule) {
    storage::RunInfo run;
    run.events = {{"cpu-clock", 1'000'000, true}, {"page-faults", 0, false}};
    const uint64_t ok[] = {1'000'000, kMaxCount};
    EXPECT_EQ(storage::impossible_values(run, ok), "");
    const uint64_t off_period[] = {1'000'001, 0};
    EXPECT_NE(storage::impossible_values(run, off_period).find("is not its period 1000000"),
              std::string::npos);
    const uint64_t huge[] = {1'000'000, kMaxCount + 1};
    EXPECT_NE(storage::impossible_values(run, huge).find("page-faults value 9223372036854775808"),
              std::string::npos);
}

TEST(SampleValues, SumsSaturate) {
    EXPECT_EQ(cpcprof::analysis::saturating_add(kMax - 1, 1), kMax);
    EXPECT_EQ(cpcprof::analysis::saturating_add(kMax - 1, 5), kMax);
    EXPECT_EQ(cpcprof::analysis::saturating_add(kMaxCount, kMaxCount), kMax - 1);
    cpcprof::analysis::Cost a{kMax - 2, {kMax, 7}}, b{3, {1, 8}};
    a.add(b);
    EXPECT_EQ(a.samples, kMax);
    EXPECT_EQ(a.values, (std::vector<uint64_t>{kMax, 15}));
}

TEST(SampleValues, AValueOffThePeriodIsRefused) {
    TempDir dir;
    const std::string file = dir.file("max.cpcprof");
    write_valued_profile(file, kMax, 1); // what once gave 850,864,828,653 %
    RunResult check = cpcprof(dir, {"check", file});
    EXPECT_EQ(check.status, 1);
    EXPECT_NE(check.out.find("1 sample has values no recording produces; the first, sample 1 "
                             "(pid 100, tid 100): cpu-clock value 18446744073709551615 is "
                             "not its period 1000000"),
              std::string::npos)
        << check.out;
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"report"},
             {"report", "--callers", "main"},
             {"flamegraph", "-o", "-"},
             {"export", "--format", "pprof", "-o", dir.file("x.pb.gz")},
             {"annotate", "hot"}}) {
        args.insert(args.begin() + 1, file);
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 1) << args[0] << "\n" << r.out.substr(0, 300);
        EXPECT_NE(r.err.find("no recording produces"), std::string::npos) << args[0] << r.err;
    }
    RunResult diff = cpcprof(dir, {"diff", file, file});
    EXPECT_EQ(diff.status, 1);
    EXPECT_NE(diff.err.find("no recording produces"), std::string::npos) << diff.err;
}

TEST(SampleValues, ACountOf2To63IsRefused) {
    TempDir dir;
    const std::string file = dir.file("count.cpcprof");
    write_valued_profile(file, 1'000'000, kMaxCount + 1);
    RunResult check = cpcprof(dir, {"check", file});
    EXPECT_EQ(check.status, 1);
    EXPECT_NE(check.out.find("beyond what one sampling period can count"), std::string::npos)
        << check.out;
    RunResult r = cpcprof(dir, {"report", file});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("page-faults value 9223372036854775808"), std::string::npos) << r.err;
}

TEST(SampleValues, LargeSumsSaturate) {
    // Three possible counts of 2^63 - 1: their sum does not fit 64 bits.
    TempDir dir;
    const std::string file = dir.file("sum.cpcprof");
    write_valued_profile(file, 1'000'000, kMaxCount, 3);
    RunResult check = cpcprof(dir, {"check", file});
    EXPECT_EQ(check.status, 0) << check.out;

    RunResult csv = cpcprof(dir, {"report", file, "--format", "csv", "--sort", "page-faults"});
    ASSERT_EQ(csv.status, 0) << csv.err;
    // hot: self and total page-faults saturated, 100 % of a saturated total.
    EXPECT_NE(csv.out.find("hot,/opt/valued,/src/v.c,2,3,3,3000000,3000000,75.0000,75.0000,"
                           "18446744073709551615,18446744073709551615,100.0000,100.0000"),
              std::string::npos)
        << csv.out;

    RunResult folded =
        cpcprof(dir, {"export", file, "--format", "folded", "--event", "page-faults"});
    ASSERT_EQ(folded.status, 0) << folded.err;
    EXPECT_NE(folded.out.find("main;hot 18446744073709551615\n"), std::string::npos) << folded.out;

    if (protoc_path().empty() || pprof_proto_path().empty())
        GTEST_SKIP() << "protoc or google/pprof's profile.proto is missing: pprof values "
                        "not decoded";
    ASSERT_EQ(cpcprof(dir, {"export", file, "--format", "pprof", "-o", dir.file("p.pb.gz")}).status,
              0);
    PprofProfile p;
    std::string error;
    ASSERT_TRUE(decode_pprof(dir.file("p.pb.gz"), dir.path(), &p, &error)) << error;
    bool saw_max = false;
    for (const PprofSample &s : p.samples)
        for (int64_t v : s.values) {
            EXPECT_GE(v, 0);
            saw_max = saw_max || v == INT64_MAX;
        }
    EXPECT_TRUE(saw_max) << "the saturated sum is written as INT64_MAX";
}

} // namespace
} // namespace cpcprof::test
