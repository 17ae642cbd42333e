// SPDX-License-Identifier: MIT
// What the command lines of cputrack(1) and cpustat(8) share: -c spec
// (repeatable, kept in order), -D, -h, -n and -t, read from getopt(3).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace cpcprof::tools {

struct CounterToolOptions {
    std::vector<std::string> specs; // -c, in order
    bool no_header = false;         // -n
    bool tsc = false;               // -t
    bool debug = false;             // -D
    bool help = false;              // -h
};

// Takes getopt's c (with its optarg) into *o when it is one of the shared
// options; false when it is not.
bool take_shared_option(int c, const char *optarg, CounterToolOptions *o);

// Runs getopt(3) over argv from its start with optstring (":" first, so
// that a missing value is told apart; "+:" to stop at the first operand):
// the shared options go into *o, the others to own(c, optarg), which
// returns "" or what is wrong.  Returns the first error, getopt's own
// included ("unknown option -X"), or "" with optind at the first operand.
std::string walk_getopt(int argc, char **argv, const char *optstring, CounterToolOptions *o,
                        const std::function<std::string(int c, const char *arg)> &own);

} // namespace cpcprof::tools
