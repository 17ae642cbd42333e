// SPDX-License-Identifier: MIT
// The manual pages' examples, compiled as C from the page and run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

struct Output {
    std::string out;
    int status = -1;
};

Output run(const std::string &cmd) {
    Output r;
    FILE *p = popen((cmd + " 2>&1").c_str(), "r");
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.out.append(buf, n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

} // namespace

TEST(Examples, Example1PrintsTwentyIterationsOfCounts) {
    Output r = run(std::string("EVENT0=page-faults EVENT1=context-switches ") + EXAMPLE1_PATH);
    ASSERT_EQ(r.status, 0) << r.out;
    std::istringstream in(r.out);
    std::string line;
    std::regex re(R"(^\s*(\d+): (\d+) (\d+)$)");
    int lines = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, re)) << line;
        ++lines;
        EXPECT_EQ(std::stoi(m[1]), lines);
        long faults = std::stol(m[2]);
        // 64 fresh pages per iteration (plus a few of printf's own).
        EXPECT_GE(faults, 64) << line;
        EXPECT_LT(faults, 90) << line;
    }
    EXPECT_EQ(lines, 20);
}

TEST(Examples, Example1ReportsAnUnknownEvent) {
    Output r = run(std::string("EVENT0=EC_ref ") + EXAMPLE1_PATH);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("libcpc: cpc_set_add_request: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("could not add first request"), std::string::npos) << r.out;
}

TEST(Examples, Example2HandlesOverflowSignals) {
    Output r = run(EXAMPLE2_PATH);
    ASSERT_EQ(r.status, 0) << r.out;
    std::istringstream in(r.out);
    std::string line;
    std::regex head(
        R"(^lwp(\d+) - si_addr (0x[0-9a-f]+) ucontext: %pc (0x[0-9a-f]+) %sp (0x[0-9a-f]+)$)");
    std::regex value(R"(^0x([0-9a-f]+)$)");
    int signals = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, head)) << line;
        EXPECT_EQ(m[2], m[3]) << "si_addr is not the interrupted PC: " << line;
        ++signals;
        ASSERT_TRUE(std::getline(in, line));
        ASSERT_TRUE(std::regex_match(line, m, value)) << line;
        // Read in the handler: preset + events has just wrapped past zero.
        EXPECT_LT(std::stoull(m[1], nullptr, 16), 5u) << line;
    }
    // 20 iterations x 500 page faults, one signal per 1000.
    EXPECT_GE(signals, 10);
    EXPECT_LE(signals, 11);
}

// libcpc.so.1 does not need libpctx (a library fewer in every process
// cpcprof records): a program linked with libcpc alone binds through a
// pctx from a libpctx it loaded itself, and is told plainly without one.
TEST(Examples, BindPctxFindsTheLibpctxTheProgramLoaded) {
    // By its path: a sanitizer's dlopen is not the program's, and does
    // not search the program's RUNPATH.
    Output r = run(std::string(PCTX_LOADED_PATH) + " dlopen " + PCTX_LIBRARY_PATH);
    if (r.out.rfind("pctx_create: ", 0) == 0)
        GTEST_SKIP() << "libpctx cannot control a process here (ptrace refused?): " << r.out;
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out, "bound 1, failed 0\n");
}

TEST(Examples, BindPctxWithoutLibpctxSaysSo) {
    Output r = run(std::string(PCTX_LOADED_PATH) + " none");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("libcpc: cpc_bind_pctx: libpctx.so.1 is not loaded"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rc -1 errno EINVAL"), std::string::npos) << r.out;
}

// The examples run unchanged where perf_event_open is refused: on the
// timer backend, forced or reached under a container's seccomp verdict.
struct TimerExamples : ::testing::TestWithParam<const char *> {};

INSTANTIATE_TEST_SUITE_P(Timer, TimerExamples,
                         ::testing::Values("CPC_BACKEND=timer ", REFUSE_PERF_PATH " seccomp "),
                         [](const ::testing::TestParamInfo<const char *> &p) {
                             return p.index == 0 ? "Forced" : "Seccomp";
                         });

TEST_P(TimerExamples, Example1CountsFaultsAndCpuTime) {
    Output r =
        run(std::string("EVENT0=page-faults EVENT1=task-clock ") + GetParam() + EXAMPLE1_PATH);
    ASSERT_EQ(r.status, 0) << r.out;
    std::istringstream in(r.out);
    std::string line;
    std::regex re(R"(^\s*(\d+): (\d+) (\d+)$)");
    int lines = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, re)) << line;
        ++lines;
        long faults = std::stol(m[2]);
        EXPECT_GE(faults, 64) << line;
        EXPECT_LT(faults, 90) << line;
        // 64 faults take some microseconds of CPU time, and not a second.
        long ns = std::stol(m[3]);
        EXPECT_GT(ns, 1000) << line;
        EXPECT_LT(ns, 1000000000) << line;
    }
    EXPECT_EQ(lines, 20);
}

// Example 2 on cpu-clock: its preset is 1000 ns short of overflow, so the
// computation overflows at every microsecond of CPU time it uses.
TEST_P(TimerExamples, Example2HandlesOverflowSignalsOfTheClock) {
    Output r = run(std::string("EVENT=cpu-clock ") + GetParam() + EXAMPLE2_PATH);
    ASSERT_EQ(r.status, 0) << r.out.substr(0, 2000);
    std::istringstream in(r.out);
    std::string line;
    std::regex head(
        R"(^lwp(\d+) - si_addr (0x[0-9a-f]+) ucontext: %pc (0x[0-9a-f]+) %sp (0x[0-9a-f]+)$)");
    std::regex value(R"(^0x([0-9a-f]+)$)");
    int signals = 0, not_wrapped = 0, pc_mismatch = 0;
    while (std::getline(in, line)) {
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, head)) << line;
        pc_mismatch += m[2] != m[3];
        ++signals;
        ASSERT_TRUE(std::getline(in, line));
        ASSERT_TRUE(std::regex_match(line, m, value)) << line;
        // At an overflow instant: a whole number of 1000-ns periods past
        // the wrap (0 but where overflows merged: beyond the 1000 that one
        // signal reports).
        not_wrapped += std::stoull(m[1], nullptr, 16) % 1000 != 0;
    }
    EXPECT_EQ(pc_mismatch, 0) << "si_addr is not the interrupted PC";
    EXPECT_EQ(not_wrapped, 0) << "the value read in the handler is not the overflow's";
    // 10,000 page faults take well over a millisecond of CPU time.
    EXPECT_GE(signals, 1000);
}
