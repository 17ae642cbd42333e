// SPDX-License-Identifier: MIT
// Command line of cputrack(1):
//   cputrack -c spec [-c spec]... [-efntvD] [-N count] [-o file] [-T secs] command [args]
//   cputrack -c spec [-c spec]... -p pid [-efntvD] [-N count] [-o file] [-T secs]
//   cputrack -h
// Options end at the command: its own options are its own.
#ifndef CPCTOOLS_CPUTRACK_OPTIONS_H
#define CPCTOOLS_CPUTRACK_OPTIONS_H

#include "base/args.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace cpctools {

struct CputrackOptions {
    std::vector<std::string> specs;   // -c, in order
    unsigned interval_ms = 1000;      // -T; 0 = no periodic samples
    unsigned count = 0;               // -N; 0 = unlimited
    std::string output;               // -o; empty = standard output
    pid_t pid = 0;                    // -p; 0 = run the command
    std::vector<std::string> command; // the command and its arguments
    bool follow_exec = false;         // -e
    bool follow_fork = false;         // -f
    bool no_header = false;           // -n
    bool tsc = false;                 // -t
    bool verbose = false;             // -v
    bool debug = false;               // -D
    bool help = false;                // -h
};

using CputrackArgs = cpcprof::base::ParsedArgs<CputrackOptions>;

CputrackArgs parse_cputrack_args(int argc, char **argv);

extern const char kCputrackUsage[];

} // namespace cpctools

#endif
