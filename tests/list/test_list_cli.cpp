// SPDX-License-Identifier: MIT
// `cpcprof list` and the command's usage text, run as a user runs them.
#include "tests/cpcprof/cli_helpers.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace cpcprof::test;

namespace {

// Whether a hardware counter opens here, asked of the kernel directly, not
// of libcpc.
bool kernel_has_pmu() {
    for (uint64_t config : {PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS}) {
        perf_event_attr a{};
        a.size = sizeof a;
        a.type = PERF_TYPE_HARDWARE;
        a.config = config;
        a.disabled = 1;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        int fd = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
        if (fd >= 0) {
            close(fd);
            return true;
        }
    }
    return false;
}

// The indented names under heading, up to the next blank line.
std::vector<std::string> group(const std::string &text, const std::string &heading) {
    std::vector<std::string> names;
    std::istringstream in(text);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line == heading + ":")
            inside = true;
        else if (line.empty())
            inside = false;
        else if (inside && line.starts_with("  "))
            names.push_back(line.substr(2));
    }
    return names;
}

bool has(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

} // namespace

TEST(ListCli, SaysWhetherThereIsAPmuAndListsSoftwareEvents) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"list"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string first = r.out.substr(0, r.out.find('\n'));
    if (kernel_has_pmu())
        EXPECT_TRUE(first.starts_with("hardware PMU: yes")) << first;
    else
        EXPECT_TRUE(first.starts_with("hardware PMU: none")) << first;
    std::vector<std::string> software = group(r.out, "software events");
    for (const char *e : {"cpu-clock", "task-clock", "page-faults", "context-switches"})
        EXPECT_TRUE(has(software, e)) << e << " not under software events:\n" << r.out;
    std::vector<std::string> platform = group(r.out, "platform events");
    EXPECT_FALSE(has(platform, "cpu-clock")) << "listed twice";
    EXPECT_EQ(has(platform, "cycles"), kernel_has_pmu()) << r.out;
    EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(ListCli, JsonHasTheSameGroups) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"list", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("{")) << r.out;
    EXPECT_TRUE(
        contains(r.out, std::string("\"hardware_pmu\": ") + (kernel_has_pmu() ? "true" : "false")))
        << r.out;
    size_t software = r.out.find("\"software\": [");
    ASSERT_NE(software, std::string::npos) << r.out;
    std::string list = r.out.substr(software, r.out.find(']', software) - software);
    EXPECT_TRUE(contains(list, "\"cpu-clock\"")) << list;
    EXPECT_TRUE(contains(list, "\"page-faults\"")) << list;
    // And by a JSON parser.
    nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc.at("hardware_pmu"), kernel_has_pmu());
    const nlohmann::json &names = doc.at("software");
    EXPECT_NE(std::find(names.begin(), names.end(), "cpu-clock"), names.end()) << names;
    EXPECT_NE(std::find(names.begin(), names.end(), "page-faults"), names.end()) << names;
}

// The scheduler's events occur in kernel mode only: on perf_event they
// read 0 in the user mode cpcprof records, and the list says so (the
// viewer's record dialog leaves them out).  The timer backend counts
// context switches from getrusage, whatever the mode.
TEST(ListCli, KernelModeOnlyEventsAreNamed) {
    TempDir dir;
    for (const char *backend : {"perf", "timer"}) {
        setenv("CPC_BACKEND", backend, 1);
        RunResult r = run_cpcprof(dir, {"list", "--json"});
        unsetenv("CPC_BACKEND");
        ASSERT_EQ(r.status, 0) << backend << r.err;
        nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << r.out;
        const nlohmann::json &software = doc.at("software");
        const nlohmann::json &kernel = doc.at("kernel_only");
        auto in = [](const nlohmann::json &a, const char *e) {
            return std::find(a.begin(), a.end(), e) != a.end();
        };
        ASSERT_TRUE(in(software, "context-switches")) << backend << software;
        EXPECT_EQ(in(kernel, "context-switches"), std::string(backend) == "perf")
            << backend << kernel;
        EXPECT_FALSE(in(kernel, "cpu-clock")) << backend << kernel;
        EXPECT_FALSE(in(kernel, "page-faults")) << backend << kernel;
        setenv("CPC_BACKEND", backend, 1);
        RunResult text = run_cpcprof(dir, {"list"});
        unsetenv("CPC_BACKEND");
        EXPECT_EQ(contains(text.out, "kernel mode only"), std::string(backend) == "perf")
            << text.out;
    }
}

TEST(ListCli, UnknownArgumentIsAUsageError) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"list", "--xml"});
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(contains(r.err, "usage: cpcprof list")) << r.err;
}

// Every command the usage text names exists (answers --help with 0); a
// name it does not know is a usage error.
TEST(CommandCli, UsageListsCommandsThatExist) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"--help"});
    ASSERT_EQ(r.status, 0);
    std::istringstream in(r.out.substr(r.out.find("commands:")));
    std::string line;
    std::vector<std::string> commands;
    std::getline(in, line);
    while (std::getline(in, line) && line.starts_with("  "))
        commands.push_back(line.substr(2, line.find(' ', 2) - 2));
    for (const char *mine : {"record", "symbolize", "check", "list"})
        EXPECT_TRUE(has(commands, mine)) << mine << " missing from:\n" << r.out;
    for (const std::string &c : commands) {
        RunResult h = run_cpcprof(dir, {c, "--help"});
        EXPECT_EQ(h.status, 0) << c << ": " << h.err;
        EXPECT_TRUE(contains(h.out, "usage: cpcprof " + c)) << c << ": " << h.out;
    }
    RunResult bad = run_cpcprof(dir, {"frobnicate"});
    EXPECT_EQ(bad.status, 2);
    EXPECT_TRUE(contains(bad.err, "unknown command 'frobnicate'")) << bad.err;
}
