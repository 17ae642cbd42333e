// SPDX-License-Identifier: MIT
#include "profiler/tools/tool_options.h"

#include "base/args.h"

#include <unistd.h>

namespace cpcprof::tools {

bool take_shared_option(int c, const char *optarg, CounterToolOptions *o) {
    switch (c) {
    case 'c':
        o->specs.emplace_back(optarg);
        return true;
    case 'D':
        o->debug = true;
        return true;
    case 'h':
        o->help = true;
        return true;
    case 'n':
        o->no_header = true;
        return true;
    case 't':
        o->tsc = true;
        return true;
    default:
        return false;
    }
}

std::string walk_getopt(int argc, char **argv, const char *optstring, CounterToolOptions *o,
                        const std::function<std::string(int c, const char *arg)> &own) {
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, optstring)) != -1) {
        if (c == '?' || c == ':')
            return base::getopt_error(c, optopt);
        if (take_shared_option(c, optarg, o))
            continue;
        if (std::string error = own(c, optarg); !error.empty())
            return error;
    }
    return "";
}

} // namespace cpcprof::tools
