// SPDX-License-Identifier: MIT
// `cpcprof record`'s command line: the options end at the command (or at
// "--"), whose own arguments are left alone; help before the command; each
// wrong option named.
#include "profiler/record/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using cpcprof::record::Options;
using cpcprof::record::parse_options;

namespace {

using Args = std::vector<std::string>;

std::string error_of(const Args &args) {
    std::string error;
    auto o = parse_options(args, &error);
    EXPECT_FALSE(o) << "accepted: " << (args.empty() ? "" : args[0]);
    return error;
}

} // namespace

TEST(RecordOptions, TheCommandEndsTheOptionsAndKeepsItsOwn) {
    std::string error;
    auto o = parse_options(
        {"-q", "-e", "cpu-clock,5000", "-o", "x.cpcprof", "ls", "-q", "-h", "--", "-o"}, &error);
    ASSERT_TRUE(o) << error;
    EXPECT_TRUE(o->quiet);
    ASSERT_EQ(o->events.size(), 1u);
    EXPECT_EQ(o->events[0].name, "cpu-clock");
    EXPECT_EQ(o->events[0].period, 5000u);
    EXPECT_EQ(o->output, "x.cpcprof");
    EXPECT_FALSE(o->help);
    EXPECT_EQ(o->command, (Args{"ls", "-q", "-h", "--", "-o"}));
}

TEST(RecordOptions, DashDashEndsTheOptions) {
    std::string error;
    auto o = parse_options({"--no-children", "--", "-", "--stats"}, &error);
    ASSERT_TRUE(o) << error;
    EXPECT_FALSE(o->children);
    EXPECT_FALSE(o->stats);
    EXPECT_EQ(o->command, (Args{"-", "--stats"}));
}

TEST(RecordOptions, HelpBeforeTheCommand) {
    for (const Args &args : {Args{"-h"}, Args{"--help"}, Args{"-q", "--help", "--bogus"}}) {
        std::string error;
        auto o = parse_options(args, &error);
        ASSERT_TRUE(o) << error;
        EXPECT_TRUE(o->help);
    }
}

TEST(RecordOptions, EachWrongOptionIsNamed) {
    EXPECT_EQ(error_of({"--bogus", "ls"}), "unknown option --bogus");
    EXPECT_EQ(error_of({"-", "ls"}), "unknown option -");
    EXPECT_EQ(error_of({"-o"}), "-o needs a value");
    EXPECT_EQ(error_of({"-e", ",5", "ls"}), "-e needs an event name");
    EXPECT_EQ(error_of({"-c", "0", "ls"}), "-c: a positive number is needed, not '0'");
    EXPECT_EQ(error_of({"--max-depth", "1025", "ls"}), "--max-depth is at most 1024");
    EXPECT_EQ(error_of({"--call-graph", "lbr", "ls"}),
              "--call-graph takes dwarf, fp or none, not 'lbr'");
    EXPECT_EQ(error_of({"-c", "5", "-F", "5", "ls"}), "-c and -F exclude each other");
    EXPECT_EQ(error_of({"-q"}), "no command to record (or -p PID, or -a)");
    EXPECT_EQ(error_of({"-q", "--"}), "no command to record (or -p PID, or -a)");
    EXPECT_EQ(error_of({"-p", "0"}), "-p takes process ids (-p 1234 or -p 1234,5678), not '0'");
    EXPECT_EQ(error_of({"-p", "12,"}), "-p takes process ids (-p 1234 or -p 1234,5678), not '12,'");
    EXPECT_EQ(error_of({"-p", "12", "ls"}), "-p attaches to running processes: give it no command");
    EXPECT_EQ(error_of({"--duration", "1", "ls"}),
              "--duration applies to -p and -a (a command is recorded until it ends)");
    EXPECT_EQ(error_of({"-p", "12", "--duration", "-1"}),
              "--duration takes a number of seconds, not '-1'");
    EXPECT_EQ(error_of({"-a", "ls"}), "-a records every process: give it no command and no -p");
    EXPECT_EQ(error_of({"-a", "-p", "12"}),
              "-a records every process: give it no command and no -p");
    EXPECT_EQ(error_of({"--cpu", "0", "ls"}), "--cpu applies to -a");
    for (const char *bad : {"", "x", "1-", "-1", "3-1", "1,,2", "0x1", "1 "})
        EXPECT_EQ(error_of({"-a", "--cpu", bad}),
                  std::string("--cpu takes CPU numbers and ranges (--cpu 0,2-3), not '") + bad +
                      "'");
    EXPECT_EQ(error_of({"-a", "--capture", "agent"}),
              "-a samples through the kernel's sample rings: --capture agent needs a command");
}

TEST(RecordOptions, SystemWideTakesCpusAndADuration) {
    std::string error;
    auto o = cpcprof::record::parse_options({"-a", "--cpu", "0,2-3,2", "--duration", "2"}, &error);
    ASSERT_TRUE(o) << error;
    EXPECT_TRUE(o->system_wide);
    EXPECT_EQ(o->cpus, (std::vector<int>{0, 2, 3}));
    EXPECT_EQ(o->duration, 2.0);
}

TEST(RecordOptions, AttachTakesPidsAndADuration) {
    std::string error;
    auto o = cpcprof::record::parse_options({"-p", "12,345", "--duration", "1.5"}, &error);
    ASSERT_TRUE(o) << error;
    EXPECT_EQ(o->pids, (std::vector<int>{12, 345}));
    EXPECT_EQ(o->duration, 1.5);
    EXPECT_TRUE(o->command.empty());
}
