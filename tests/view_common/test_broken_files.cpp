// SPDX-License-Identifier: MIT
// What `cpcprof check` refuses, every reader refuses or warns about, in
// check's words: damage only PRAGMA integrity_check finds and a sample
// with the wrong number of values are refused (exit 1), an accounting
// that does not balance or disagrees with the samples stored is a warning
// (the output is still written).  A profile with no events (the recording
// stopped before it began, or an event table lost) gets a message from
// every command that says what the file holds.
#include "tests/view_common/view_harness.h"

#include "storage/writer.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace cpcprof::test {
namespace {

using storagetest::run_sql;
using storagetest::write_known_profile;

struct BrokenFiles : ::testing::Test {
    TempDir dir;
    std::string file = dir.file("broken.cpcprof");
    void SetUp() override { write_known_profile(file); }

    // Every reading command on file (diff against itself), with its
    // output to a file where it takes -o.
    std::vector<std::vector<std::string>> commands() const {
        return {
            {"report", file},
            {"report", file, "--format", "json"},
            {"report", file, "--callers", "main"},
            {"annotate", file, "compute"},
            {"flamegraph", file, "-o", dir.file("f.svg")},
            {"export", file, "-o", dir.file("p.pb.gz")},
            {"export", file, "--format", "speedscope", "-o", dir.file("s.json")},
            {"diff", file, file},
        };
    }
    // check's output for file.
    std::string check() {
        RunResult r = cpcprof(dir, {"check", file});
        EXPECT_EQ(r.status, 1) << r.out;
        return r.out;
    }
};

std::string words(const std::vector<std::string> &args) {
    std::string s;
    for (const std::string &a : args)
        s += a + " ";
    return s;
}

TEST_F(BrokenFiles, WrongNumberOfValuesIsRefusedByEveryReader) {
    ASSERT_EQ(run_sql(file, "UPDATE sample SET more_values = NULL WHERE id = 3"), "");
    std::string c = check();
    EXPECT_NE(c.find("1 sample has 1 value, the run has 2 events"), std::string::npos) << c;
    for (const auto &args : commands()) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 1) << words(args) << r.err;
        EXPECT_NE(r.err.find("sample 3 has 1 value, the run has 2 events"), std::string::npos)
            << words(args) << r.err;
    }
}

TEST_F(BrokenFiles, UnbalancedAccountingIsAWarning) {
    ASSERT_EQ(run_sql(file, "UPDATE accounting SET taken = taken + 5"), "");
    const std::string said = "accounting of process 100 does not balance: taken 16 != stored 11 "
                             "+ dropped 0";
    std::string c = check();
    EXPECT_NE(c.find(file + ": " + said), std::string::npos) << c;
    for (const auto &args : commands()) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << words(args) << r.err;
        EXPECT_NE(r.err.find(file + ": warning: " + said), std::string::npos)
            << words(args) << r.err;
    }
}

TEST_F(BrokenFiles, SamplesMissingFromAFinishedFileAreAWarning) {
    ASSERT_EQ(run_sql(file, "UPDATE accounting SET taken = taken + 2, stored = stored + 2"), "");
    const std::string said = "process 100 has 11 samples in the file, its accounting says 13 "
                             "stored";
    std::string c = check();
    EXPECT_NE(c.find(file + ": " + said), std::string::npos) << c;
    for (const auto &args : commands()) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << words(args) << r.err;
        EXPECT_NE(r.err.find(file + ": warning: " + said), std::string::npos)
            << words(args) << r.err;
    }
}

// Times at the ends of the 64-bit range (found by fuzz_profile: the
// subtraction of the run's start overflowed; UBSan in the asan preset
// sees it): every reader answers, the filter still judges the sample by
// its wrapped offset (both are outside 0..1 s).
TEST_F(BrokenFiles, ExtremeTimesDoNotOverflow) {
    ASSERT_EQ(run_sql(file, "UPDATE sample SET time_ns = 9223372036854775807 WHERE id = 1; "
                            "UPDATE sample SET time_ns = -9223372036854775808 WHERE id = 2; "
                            "UPDATE run SET end_ns = -9223372036854775807"),
              "");
    for (auto args : commands()) {
        args.insert(args.end(), {"--time", "0,1"});
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << words(args) << r.err;
    }
}

TEST_F(BrokenFiles, ProfileWithoutEventsGetsAMessageFromEveryCommand) {
    std::string empty = dir.file("empty.cpcprof");
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) { // a recorder killed before it began the run
        std::string error;
        auto w = storage::Writer::create(empty, &error);
        raise(SIGKILL);
        _exit(w ? 4 : 2);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    file = empty;
    for (const auto &args : commands()) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 1) << words(args) << r.err;
        EXPECT_NE(r.err.find(empty + ": no events and no samples: the recording stopped before "
                                     "it began"),
                  std::string::npos)
            << words(args) << r.err;
    }
}

// An event table emptied (by hand, or a tool that rewrote the file) while
// the samples stay, without values to match (with values, the reader
// refuses them as inconsistent): every command says what the file holds,
// not that the recording never began.
TEST_F(BrokenFiles, ProfileWithSamplesButNoEventsSaysHowManySamplesItHolds) {
    ASSERT_EQ(
        run_sql(file, "DELETE FROM event; UPDATE sample SET value = NULL, more_values = NULL"), "");
    for (const auto &args : commands()) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 1) << words(args) << r.err;
        EXPECT_NE(r.err.find(file + ": no events, though it holds 11 samples: the file lost the "
                                    "list of what was sampled"),
                  std::string::npos)
            << words(args) << r.err;
        EXPECT_EQ(r.err.find("stopped before it began"), std::string::npos) << r.err;
    }
    EXPECT_NE(check().find(file + ": no events, though it holds 11 samples"), std::string::npos);
}

} // namespace
} // namespace cpcprof::test
