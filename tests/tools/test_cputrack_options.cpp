// SPDX-License-Identifier: MIT
// cputrack(1)'s options and errors: usage, every error message and exit
// status, and -o, whose file appears whole or not at all.
#include "tests/tools/cputrack_harness.h"

#include <gtest/gtest.h>

#include <libcpc.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

using namespace cputracktest;

// ---- options and errors ----

TEST(Cputrack, HelpPrintsUsageAndCapabilities) {
    Result r = run({"-h"});
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    std::string caps = cpcprof::tools::format_capabilities(cpcprof::tools::read_capabilities(cpc));
    cpc_close(cpc);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string(cpcprof::tools::kCputrackUsage) + "\n" + caps);
    EXPECT_EQ(r.err, "");
}

TEST(Cputrack, UsageErrorsExit2) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no event specification (-c) given"},
        {{"/bin/true"}, "no event specification (-c) given"},
        {{"-c", "page-faults"}, "no command to run and no -p pid given"},
        {{"-c", "page-faults", "-p", "1", "/bin/true"},
         "give either a command or -p pid, not both"},
        {{"-x", "-c", "page-faults", "/bin/true"}, "unknown option -x"},
        {{"-r", "1", "-c", "page-faults", "/bin/true"}, "unknown option -r"},
        {{"-c"}, "option -c needs a value"},
        {{"-c", "page-faults", "-T"}, "option -T needs a value"},
        {{"-c", "page-faults", "-N"}, "option -N needs a value"},
        {{"-c", "page-faults", "-o"}, "option -o needs a value"},
        {{"-c", "page-faults", "-p"}, "option -p needs a value"},
        {{"-c", "page-faults", "-T", "x", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not 'x'"},
        {{"-c", "page-faults", "-T", "-1", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '-1'"},
        {{"-c", "page-faults", "-T", "0.0001", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '0.0001'"},
        {{"-c", "page-faults", "-T", "1e10", "/bin/true"},
         "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), not '1e10'"},
        {{"-c", "page-faults", "-N", "-1", "/bin/true"},
         "-N takes a whole number of samples, 0 or more, not '-1'"},
        {{"-c", "page-faults", "-N", "2.5", "/bin/true"},
         "-N takes a whole number of samples, 0 or more, not '2.5'"},
        {{"-c", "page-faults", "-p", "0"}, "-p takes a process ID greater than 0, not '0'"},
        {{"-c", "page-faults", "-p", "12x"}, "-p takes a process ID greater than 0, not '12x'"},
        {{"-c", "page-faults", "-o", "", "/bin/true"}, "-o takes a file name, not ''"},
        {{"-c", "page-faults,,cpu-clock", "/bin/true"},
         "-c page-faults,,cpu-clock: empty token (two commas, or a comma at either end)"},
        {{"-c", "page-faults,frob=3", "/bin/true"},
         "-c page-faults,frob=3: token 'frob=3': unknown attribute 'frob'"},
        {{"-c", "pic0=page-faults,pic0=cpu-clock", "/bin/true"},
         "-c pic0=page-faults,pic0=cpu-clock: token 'pic0=cpu-clock': counter 0 already has an "
         "event"},
    };
    for (const auto &[args, why] : cases) {
        Result r = run(args);
        EXPECT_EQ(r.status, 2) << why;
        std::string err = r.err;
        // The machine may or may not have attributes to list.
        size_t none = err.find(" (this machine has none)");
        if (none != std::string::npos)
            err.erase(none, std::strlen(" (this machine has none)"));
        EXPECT_EQ(err, usage_error(why));
        EXPECT_EQ(r.out, "");
    }
}

TEST(Cputrack, OptionsEndAtTheCommand) {
    // "-n" and "-x" after the command are the command's own.
    cpcprof::tools::CputrackOptions o;
    std::vector<std::string> args = {"cputrack", "-c", "page-faults", "-T", "0.5",
                                     "-N",       "3",  "prog",        "-n", "-x"};
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    cpcprof::tools::CputrackArgs a =
        cpcprof::tools::parse_cputrack_args(int(argv.size()), argv.data());
    ASSERT_TRUE(a.ok) << a.error;
    EXPECT_EQ(a.opts.command, (std::vector<std::string>{"prog", "-n", "-x"}));
    EXPECT_FALSE(a.opts.no_header);
    EXPECT_EQ(a.opts.interval_ms, 500u);
    EXPECT_EQ(a.opts.count, 3u);
    EXPECT_EQ(a.opts.pid, 0);
}

TEST(Cputrack, EventsLibcpcRefusesExit1WithItsMessage) {
    std::string unknown = libcpc_refusal("no-such-event");
    ASSERT_NE(unknown, "");
    Result r = run({"-c", "page-faults,no-such-event", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c page-faults,no-such-event: " + unknown + "\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "no-such-event", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c no-such-event: cpc_set_add_request: " + unknown + "\n");

    std::string hw = libcpc_refusal("cycles");
    if (hw.empty())
        GTEST_SKIP() << "this machine counts cycles: no refusal to pass through";
    EXPECT_NE(hw.find("hardware"), std::string::npos) << hw;
    r = run({"-c", "cycles", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: -c cycles: " + hw + "\n");
    EXPECT_EQ(r.out, "");
}

TEST(Cputrack, ProgramThatCannotStartExits1) {
    SKIP_WITHOUT_PTRACE();
    Result r = run({"-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot find program 'no-such-program-here'\n"
                     "cputrack: failed to start program 'no-such-program-here'\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: create: cannot find program 'no-such-program-here'\n"
                     "cputrack: failed to start program 'no-such-program-here'\n");
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    r = run({"-c", "page-faults", dir});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot execute program '" + dir + "'\n" +
                         "cputrack: failed to start program '" + dir + "'\n");
    // -o: no file (and no temporary file) is left behind.
    r = run({"-o", dir + "/out", "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(dir_entries(dir).empty());
}

TEST(Cputrack, PidThatDoesNotExistExits1) {
    SKIP_WITHOUT_PTRACE();
    std::string pid = std::to_string(dead_pid());
    Result r = run({"-c", "page-faults", "-p", pid});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: pid " + pid + " doesn't exist\ncputrack: failed to capture pid " +
                         pid + "\n");
    EXPECT_EQ(r.out, "");
    r = run({"-D", "-c", "page-faults", "-p", pid});
    EXPECT_EQ(r.err, "cputrack: capture: pid " + pid +
                         " doesn't exist\ncputrack: failed to capture pid " + pid + "\n");
}

TEST(Cputrack, OutputFileThatCannotBeWrittenExits1) {
    Result r = run({"-o", "/nonexistent-dir/out", "-c", "page-faults", "/bin/true"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cputrack: cannot open '/nonexistent-dir/out' for writing - " +
                         std::string(std::strerror(ENOENT)) + "\n");
    EXPECT_EQ(r.out, "");
}

// ---- -o ----

TEST(Cputrack, OutputFileHoldsTheLinesAndAppearsWhole) {
    SKIP_WITHOUT_PTRACE();
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    std::string path = dir + "/out.txt";
    {
        std::ofstream old(path);
        old << "old\n";
    }
    // A failed run leaves an existing file as it was.
    Result r = run({"-o", path, "-c", "page-faults", "no-such-program-here"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(read_file(path), "old\n");

    mode_t mask = umask(022);
    r = run({"-o", path, "-T", "0", "-c", "page-faults", PCTX_EXEC, "exit", "3"});
    umask(mask);
    EXPECT_EQ(r.status, 0) << "cputrack's status is not the program's";
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
    std::string text = read_file(path);
    std::vector<std::string> ls = split_lines(text);
    ASSERT_EQ(ls.size(), 2u) << text;
    EXPECT_EQ(ls[0], header({"pic0"}, {}));
    std::vector<Line> lines = body(text, 1, {});
    EXPECT_EQ(lines[0].label, "exit");
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    EXPECT_EQ(dir_entries(dir), std::vector<std::string>{"out.txt"}) << "a temporary file is left";
}

} // namespace
