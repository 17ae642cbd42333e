// SPDX-License-Identifier: MIT
// docs/ci.md's gate script, taken from the page as a user copies it, run
// as a CI job runs it: on main (no baseline: it records and draws), then
// on a branch whose program has a regression (fw_injected takes 20 % more
// of the run: the gate fails and every output names it), then on a branch
// of the same program (the gate passes).  The program is the bundled
// bench_fixed_work, whose work is fixed.
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cpcprof::test {
namespace {

// The script of docs/ci.md's "The script": the ```sh block that starts
// with its #! line.
std::string gate_script() {
    std::string page = read_file(SOURCE_DIR "/docs/ci.md");
    const std::string open = "```sh\n#!/bin/sh\n# cpcprof-gate.sh";
    size_t from = page.find(open);
    if (from == std::string::npos)
        return "";
    from += 6; // past "```sh\n"
    size_t to = page.find("\n```\n", from);
    return to == std::string::npos ? "" : page.substr(from, to - from + 1);
}

struct Job {
    RunResult result;
    std::string out; // the job's OUT folder
};

// One CI job: the script in dir with the environment a job sets.
Job run_job(const TempDir &dir, const std::string &name, const std::string &baseline,
            const std::vector<std::string> &test_command) {
    Job job;
    job.out = dir.file(name);
    std::vector<std::string> argv = {"/bin/sh", dir.file("cpcprof-gate.sh")};
    argv.insert(argv.end(), test_command.begin(), test_command.end());
    ProgramOptions o;
    o.env = {std::string("CPCPROF=") + CPCPROF_EXE, "BASELINE=" + baseline, "RUNS=2",
             "OUT=" + job.out, "GITHUB_STEP_SUMMARY=" + dir.file(name + "-summary")};
    o.own_group = true;
    o.out = name + ".stdout";
    o.err = name + ".stderr";
    pid_t pid = start_program(dir, argv, o);
    job.result = wait_program(dir, pid, o, 90);
    return job;
}

bool exists(const std::string &path) {
    return std::filesystem::exists(path);
}

TEST(CiRecipe, TheGateScriptOfTheDocsCatchesARegressionAndPassesTheSameBuild) {
    SKIP_WITHOUT_DEMO_RECORDING(); // the agent is preloaded into bench_fixed_work
    const std::string script = gate_script();
    ASSERT_FALSE(script.empty()) << "no cpcprof-gate.sh block in docs/ci.md";
    TempDir dir;
    {
        std::ofstream f(dir.file("cpcprof-gate.sh"));
        f << script;
    }
    const std::vector<std::string> same = {FIXED_WORK_EXE, "1"};
    const std::vector<std::string> slower = {FIXED_WORK_EXE, "1", "20"};

    // main: nothing to compare with; its runs are the next baseline.
    Job main = run_job(dir, "main", dir.file("main-profiles"), same);
    ASSERT_EQ(main.result.status, 0) << main.result.out << main.result.err;
    EXPECT_NE(main.result.out.find("nothing to compare with"), std::string::npos)
        << main.result.out;
    for (const char *f : {"/run-1.cpcprof", "/run-2.cpcprof", "/flame.html"})
        EXPECT_TRUE(exists(main.out + f)) << f;
    EXPECT_FALSE(exists(main.out + "/diff.txt"));
    std::filesystem::rename(main.out, dir.file("main-profiles"));

    // A branch with a regression: exit 3, named in every output.
    Job bad = run_job(dir, "bad", dir.file("main-profiles"), slower);
    EXPECT_EQ(bad.result.status, 3) << bad.result.out << bad.result.err;
    EXPECT_NE(bad.result.err.find("regression"), std::string::npos) << bad.result.err;
    EXPECT_NE(bad.result.err.find("fw_injected"), std::string::npos) << bad.result.err;
    EXPECT_NE(bad.result.out.find("Welch's t-test over runs"), std::string::npos) << bad.result.out;
    std::string junit = read_file(bad.out + "/junit.xml");
    EXPECT_NE(junit.find("name=\"fw_injected (bench_fixed_work)\">\n      <failure"),
              std::string::npos)
        << junit;
    std::string summary = read_file(bad.out + "/summary.md");
    EXPECT_NE(summary.find("**Regression**"), std::string::npos) << summary;
    EXPECT_NE(summary.find("| **regression** | fw\\_injected |"), std::string::npos) << summary;
    EXPECT_EQ(read_file(dir.file("bad-summary")), summary) << "appended to GITHUB_STEP_SUMMARY";
    for (const char *f : {"/diff.txt", "/diff.html", "/flame.html"})
        EXPECT_TRUE(exists(bad.out + f)) << f;

    // The same build: the gate passes; fw_injected is nowhere.
    Job good = run_job(dir, "good", dir.file("main-profiles"), same);
    EXPECT_EQ(good.result.status, 0) << good.result.out << good.result.err;
    EXPECT_NE(good.result.out.find("no function's self share grew"), std::string::npos)
        << good.result.out;
    EXPECT_NE(read_file(good.out + "/junit.xml").find("failures=\"0\""), std::string::npos);
    EXPECT_NE(read_file(good.out + "/summary.md").find("**No regression**"), std::string::npos);
}

} // namespace
} // namespace cpcprof::test
