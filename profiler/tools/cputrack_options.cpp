// SPDX-License-Identifier: MIT
#include "profiler/tools/cputrack_options.h"

#include "base/args.h"

#include <climits>
#include <cmath>
#include <unistd.h>

namespace cpcprof::tools {

const char kCputrackUsage[] = "Usage:\n"
                              "\tcputrack [-T secs] [-N count] [-Defhntv] [-o file]\n"
                              "\t\t-c events [command [args] | -p pid]\n"
                              "\n"
                              "\t-T secs\t  seconds between samples, default 1\n"
                              "\t-N count  number of samples, default unlimited\n"
                              "\t-D\t  enable debug mode\n"
                              "\t-e\t  follow exec(2), and execve(2)\n"
                              "\t-f\t  follow fork(2), and vfork(2)\n"
                              "\t-h\t  print extended usage information\n"
                              "\t-n\t  suppress titles\n"
                              "\t-t\t  include virtualized tsc register\n"
                              "\t-v\t  verbose mode\n"
                              "\t-o file\t  write cpu statistics to this file\n"
                              "\t-c events specify processor events to be monitored\n"
                              "\t-p pid\t  pid of existing process to capture\n"
                              "\n"
                              "\tUse cpustat(8) to monitor system-wide statistics.\n";

namespace {

// Seconds, 0 or more, as whole milliseconds that fit pctx_run's argument.
bool parse_interval(const char *text, unsigned *ms) {
    auto v = cpcprof::base::parse_real(text);
    if (!v || *v < 0 || *v * 1000.0 > double(UINT_MAX))
        return false;
    double rounded = std::round(*v * 1000.0);
    if (*v > 0 && rounded < 1) // a positive interval under a millisecond
        return false;
    *ms = static_cast<unsigned>(rounded);
    return true;
}

constexpr auto failure = &CputrackArgs::failure;

} // namespace

CputrackArgs parse_cputrack_args(int argc, char **argv) {
    CputrackArgs a;
    CputrackOptions &o = a.opts;
    // '+': the first operand is the command; what follows it is its own.
    std::string error =
        walk_getopt(argc, argv, "+:T:N:Defhntvo:c:p:", &o, [&](int c, const char *arg) {
            std::string value = arg ? arg : "";
            std::optional<long long> n;
            switch (c) {
            case 'T':
                if (!parse_interval(arg, &o.interval_ms))
                    return "-T takes a number of seconds, 0 or more (at least 0.001 when not 0), "
                           "not '" +
                           value + "'";
                break;
            case 'N':
                if (!(n = base::parse_whole(arg, 0, UINT_MAX)))
                    return "-N takes a whole number of samples, 0 or more, not '" + value + "'";
                o.count = static_cast<unsigned>(*n);
                break;
            case 'p':
                if (!(n = base::parse_whole(arg, 1, INT_MAX)))
                    return "-p takes a process ID greater than 0, not '" + value + "'";
                o.pid = static_cast<pid_t>(*n);
                break;
            case 'o':
                if (value.empty())
                    return std::string("-o takes a file name, not ''");
                o.output = value;
                break;
            case 'e':
                o.follow_exec = true;
                break;
            case 'f':
                o.follow_fork = true;
                break;
            case 'v':
                o.verbose = true;
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
    for (int i = optind; i < argc; ++i)
        o.command.emplace_back(argv[i]);
    if (o.specs.empty())
        return failure("no event specification (-c) given");
    if (o.pid != 0 && !o.command.empty())
        return failure("give either a command or -p pid, not both");
    if (o.pid == 0 && o.command.empty())
        return failure("no command to run and no -p pid given");
    a.ok = true;
    return a;
}

} // namespace cpcprof::tools
