// SPDX-License-Identifier: MIT
// Which counters a recording used, as a user meets it: where
// perf_event_open is refused (a container's seccomp profile) record falls
// back on libcpc's POSIX-timer backend by itself, says so in one line
// naming the refusal and what would allow hardware events, and the
// profile keeps the backend and why, which report and check show.
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace cpcprof::test;

namespace {

TEST(RecordBackend, ARefusedPerfEventOpenFallsBackSaysSoAndKeepsIt) {
    TempDir dir;
    RunResult r = run_cpcprof_in_container(
        dir, {"record", "-o", "out.cpcprof", "--", WORKLOAD_FP, "--seconds", "0.3"});
    ASSERT_EQ(r.status, 0) << r.err;
    // One line: the refusal, the backend, the period, the remedy.
    ASSERT_EQ(count_lines_containing(r.err, "POSIX CPU timers"), 1u) << r.err;
    auto said = lines_with(r.err, "cpcprof: perf_event_open refused (EPERM: ");
    ASSERT_EQ(said.size(), 1u) << r.err;
    EXPECT_TRUE(contains(said[0], "sampling cpu-clock with POSIX CPU timers every 1000 us"))
        << said[0];
    EXPECT_TRUE(contains(said[0], "hardware events need CAP_PERFMON")) << said[0];

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_EQ(p.reader->run().counters, "posix-timer");
    EXPECT_TRUE(p.reader->run().counters_reason.starts_with("perf_event_open refused (EPERM: "))
        << p.reader->run().counters_reason;
    // It sampled: the workload's 0.3 s of CPU time at 1 kHz.
    EXPECT_GT(p.samples.size(), 150u);
    EXPECT_TRUE(p.reader->accounting_balanced());

    RunResult report = run_cpcprof(dir, {"report", "out.cpcprof"});
    ASSERT_EQ(report.status, 0) << report.err;
    EXPECT_TRUE(contains(report.out, "# counters: posix-timer, because perf_event_open refused "
                                     "(EPERM: "))
        << report.out;
    RunResult check = run_cpcprof(dir, {"check", "out.cpcprof"});
    ASSERT_EQ(check.status, 0) << check.err;
    EXPECT_TRUE(contains(check.out, ", counters posix-timer")) << check.out;
}

// Where perf_event_open works, it is what records, without a word.
TEST(RecordBackend, PerfEventOpenIsUsedWhereAllowed) {
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", WORKLOAD_FP, "--seconds", "0.1"});
    ASSERT_EQ(r.status, 0) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    if (p.reader->run().counters == "posix-timer")
        GTEST_SKIP() << "perf_event_open is refused here too (" << p.reader->run().counters_reason
                     << "): nothing to compare";
    EXPECT_EQ(p.reader->run().counters, "perf_event");
    EXPECT_EQ(p.reader->run().counters_reason, "");
    EXPECT_EQ(count_lines_containing(r.err, "POSIX CPU timers"), 0u) << r.err;
}

// A user who asked for perf_event_open alone gets the refusal and the way
// out, not "not available".
TEST(RecordBackend, ForcedPerfUnderARefusalSaysWhyAndWhatElseWorks) {
    TempDir dir;
    RunResult r = run_cpcprof_in_container(dir, {"record", "-o", "out.cpcprof", "--", "/bin/true"},
                                           {"CPC_BACKEND=perf"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "cpcprof record: perf_event_open refused (EPERM: ")) << r.err;
    EXPECT_TRUE(contains(r.err, "CPC_BACKEND=perf rules out the POSIX-timer backend: unset "
                                "CPC_BACKEND"))
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.cpcprof")));
}

} // namespace
