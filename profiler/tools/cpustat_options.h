// SPDX-License-Identifier: MIT
// Command line of cpustat(8):
//   cpustat -c spec [-c spec]... [-p period] [-T u|d] [-sntD] [interval [count]]
//   cpustat -h
#ifndef CPCTOOLS_CPUSTAT_OPTIONS_H
#define CPCTOOLS_CPUSTAT_OPTIONS_H

#include "base/args.h"

#include <string>
#include <vector>

namespace cpctools {

struct CpustatOptions {
    std::vector<std::string> specs; // -c, in order
    double interval = 5.0;          // seconds between samples
    long count = 0;                 // samples (cycles with -p); 0 = unlimited
    double period = 0.0;            // -p; 0 = none
    char timestamp = 0;             // -T: 'u', 'd' or 0
    bool soak = false;              // -s
    bool no_header = false;         // -n
    bool tsc = false;               // -t
    bool debug = false;             // -D
    bool help = false;              // -h
};

using CpustatArgs = cpcprof::base::ParsedArgs<CpustatOptions>;

CpustatArgs parse_cpustat_args(int argc, char **argv);

extern const char kCpustatUsage[];

} // namespace cpctools

#endif
