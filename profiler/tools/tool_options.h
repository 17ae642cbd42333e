// SPDX-License-Identifier: MIT
// What the command lines of cputrack(1) and cpustat(8) share: -c spec
// (repeatable, kept in order), -D, -h, -n and -t, read from getopt(3).
#pragma once

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

} // namespace cpcprof::tools
