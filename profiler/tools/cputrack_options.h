// SPDX-License-Identifier: MIT
// Command line of cputrack(1):
//   cputrack -c spec [-c spec]... [-efntvD] [-N count] [-o file] [-T secs] command [args]
//   cputrack -c spec [-c spec]... -p pid [-efntvD] [-N count] [-o file] [-T secs]
//   cputrack -h
// Options end at the command: its own options are its own.
#pragma once

#include "base/args.h"
#include "profiler/tools/tool_options.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace cpcprof::tools {

struct CputrackOptions : CounterToolOptions {
    unsigned interval_ms = 1000;      // -T; 0 = no periodic samples
    unsigned count = 0;               // -N; 0 = unlimited
    std::string output;               // -o; empty = standard output
    pid_t pid = 0;                    // -p; 0 = run the command
    std::vector<std::string> command; // the command and its arguments
    bool follow_exec = false;         // -e
    bool follow_fork = false;         // -f
    bool verbose = false;             // -v
};

using CputrackArgs = cpcprof::base::ParsedArgs<CputrackOptions>;

CputrackArgs parse_cputrack_args(int argc, char **argv);

extern const char kCputrackUsage[];

} // namespace cpcprof::tools
