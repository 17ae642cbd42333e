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
