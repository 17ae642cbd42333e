// SPDX-License-Identifier: MIT
// Command line of cpustat(8):
//   cpustat -c spec [-c spec]... [-p period] [-T u|d] [-sntD] [interval [count]]
//   cpustat -h
#pragma once

#include "base/args.h"
#include "profiler/tools/tool_options.h"

#include <string>
#include <vector>

namespace cpcprof::tools {

struct CpustatOptions : CounterToolOptions {
    double interval = 5.0; // seconds between samples
    long count = 0;        // samples (cycles with -p); 0 = unlimited
    double period = 0.0;   // -p; 0 = none
    char timestamp = 0;    // -T: 'u', 'd' or 0
    bool soak = false;     // -s
};

using CpustatArgs = cpcprof::base::ParsedArgs<CpustatOptions>;

CpustatArgs parse_cpustat_args(int argc, char **argv);

extern const char kCpustatUsage[];

} // namespace cpcprof::tools
