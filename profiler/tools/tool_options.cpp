// SPDX-License-Identifier: MIT
#include "profiler/tools/tool_options.h"

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

} // namespace cpcprof::tools
