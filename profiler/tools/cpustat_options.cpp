// SPDX-License-Identifier: MIT
#include "profiler/tools/cpustat_options.h"

#include "base/args.h"

#include <climits>
#include <unistd.h>

namespace cpcprof::tools {

const char kCpustatUsage[] =
    "Usage:\n"
    "\tcpustat -c spec [-c spec]... [-p period] [-T u|d] [-sntD] [interval [count]]\n"
    "\tcpustat -h\n"
    "\n"
    "\t-c spec\t specify processor events to be monitored\n"
    "\t-n\t suppress titles\n"
    "\t-p period cycle through event list periodically\n"
    "\t-s\t run user soaker thread for system-only events\n"
    "\t-t\t include tsc register\n"
    "\t-T u|d\t print a timestamp (u: seconds since the epoch, d: date(1) format)\n"
    "\t-D\t enable debug mode\n"
    "\t-h\t print extended usage information\n";

namespace {

// A positive, finite number of seconds.
bool parse_seconds(const char *text, double *out) {
    auto v = cpcprof::base::parse_real(text);
    if (!v || *v <= 0)
        return false;
    *out = *v;
    return true;
}

constexpr auto failure = &CpustatArgs::failure;

} // namespace

CpustatArgs parse_cpustat_args(int argc, char **argv) {
    CpustatArgs a;
    CpustatOptions &o = a.opts;
    std::string error = walk_getopt(argc, argv, ":Dc:hntT:sp:", &o, [&](int c, const char *arg) {
        std::string value = arg ? arg : "";
        switch (c) {
        case 's':
            o.soak = true;
            break;
        case 'T':
            if (value != "u" && value != "d")
                return "-T takes u or d, not '" + value + "'";
            o.timestamp = value[0];
            break;
        case 'p':
            if (!parse_seconds(arg, &o.period))
                return "-p takes a period in seconds greater than 0, not '" + value + "'";
            break;
        }
        return std::string();
    });
    if (!error.empty())
        return failure(error);
    if (o.help) {
        a.ok = true;
        return a;
    }
    if (o.specs.empty())
        return failure("no event specification (-c) given");
    int rest = argc - optind;
    if (rest > 2)
        return failure(std::string("unexpected argument '") + argv[optind + 2] + "'");
    if (rest >= 1 && !parse_seconds(argv[optind], &o.interval))
        return failure(std::string("interval must be a number of seconds greater than 0, not '") +
                       argv[optind] + "'");
    if (rest == 2) {
        auto count = cpcprof::base::parse_whole(argv[optind + 1], 1, LONG_MAX);
        if (!count)
            return failure(std::string("count must be a whole number greater than 0, not '") +
                           argv[optind + 1] + "'");
        o.count = long(*count);
    }
    if (o.period > 0 && o.period < o.interval * static_cast<double>(o.specs.size()))
        return failure("period must be at least the interval times the number of event sets");
    a.ok = true;
    return a;
}

} // namespace cpcprof::tools
