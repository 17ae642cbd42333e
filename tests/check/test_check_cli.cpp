// SPDX-License-Identifier: MIT
// `cpcprof check` as a command: what it prints for a sound profile, a
// truncated one and a file that is no profile, and its exit status.  What
// check finds inside a file is tested on check_file (tests/storage).
#include "tests/cpcprof/cli_helpers.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace cpcprof::test;

TEST(CheckCli, ExitStatusAndOneLinePerFile) {
    TempDir dir;
    RunResult rec = run_cpcprof(dir, {"record", "-q", "-o", "good.cpcprof", "--", "sh", "-c",
                                      "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"});
    ASSERT_EQ(rec.status, 0) << rec.err;
    std::string good = read_file(dir.file("good.cpcprof"));
    ASSERT_GT(good.size(), 8192u);
    std::ofstream(dir.file("truncated.cpcprof"), std::ios::binary)
        << good.substr(0, good.size() / 2);
    std::ofstream(dir.file("junk.cpcprof")) << "not a profile\n";

    RunResult r = run_cpcprof(dir, {"check", "good.cpcprof"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(r.out.starts_with("good.cpcprof: ok: ")) << r.out;
    EXPECT_TRUE(contains(r.out, "complete")) << r.out;

    for (const char *bad : {"truncated.cpcprof", "junk.cpcprof", "missing.cpcprof"}) {
        r = run_cpcprof(dir, {"check", bad});
        EXPECT_EQ(r.status, 1) << bad << ": " << r.out << r.err;
        EXPECT_TRUE(r.out.starts_with(std::string(bad) + ": ")) << r.out;
        EXPECT_FALSE(contains(r.out, ": ok:")) << r.out;
    }
    EXPECT_EQ(read_file(dir.file("good.cpcprof")), good) << "check changed the file";

    // Several files: a line for each, and 1 because one is bad.
    r = run_cpcprof(dir, {"check", "good.cpcprof", "junk.cpcprof"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(lines_with(r.out, "good.cpcprof: ok: ").size(), 1u) << r.out;
    EXPECT_EQ(lines_with(r.out, "junk.cpcprof: ").size(), 1u) << r.out;

    r = run_cpcprof(dir, {"check"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
}
