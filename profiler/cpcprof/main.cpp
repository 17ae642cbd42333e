// SPDX-License-Identifier: MIT
// cpcprof: the profiler's command.
#include "profiler/analysis/query.h"
#include "profiler/check/check.h"
#include "profiler/diff/diff.h"
#include "profiler/export/export.h"
#include "profiler/flamegraph/flamegraph.h"
#include "profiler/list/list.h"
#include "profiler/record/record.h"
#include "profiler/report/report.h"
#include "profiler/symbolize_profile/symbolize_profile.h"

#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

const char kUsage[] = "usage: cpcprof COMMAND [ARGS]\n"
                      "\n"
                      "commands:\n"
                      "  record      run a program and record where it spends events\n"
                      "  symbolize   resolve a profile's addresses again (new debug symbols)\n"
                      "  report      hotspots of a profile: a table, or callers / callees trees\n"
                      "  annotate    a function's source with per-line costs\n"
                      "  flamegraph  draw a profile as a flame graph (SVG or HTML)\n"
                      "  export      the profile for other tools: folded, pprof, speedscope\n"
                      "  diff        compare two profiles: changes of each function's share\n"
                      "  check       verify profiles (integrity, format, accounting)\n"
                      "  list        the events this machine can count\n"
                      "\n"
                      "cpcprof COMMAND --help describes a command.\n";

int dispatch(const std::string &cmd, const std::vector<std::string> &args);

} // namespace

// A profile can ask for more than the machine (or RLIMIT_AS) gives: the
// command says so and exits 1 instead of aborting on an uncaught
// exception.
int main(int argc, char **argv) {
    if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
        std::fputs(kUsage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    try {
        return dispatch(cmd, std::vector<std::string>(argv + 2, argv + argc));
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr,
                     "cpcprof %s: this profile needs more memory than this process can have "
                     "(the machine's or its limit, ulimit -v); select fewer samples "
                     "(--pid, --tid, --time) where the command has them\n",
                     cmd.c_str());
    } catch (const cpcprof::analysis::TooLarge &e) {
        std::fprintf(stderr, "cpcprof %s: %s\n", cmd.c_str(), e.what());
    } catch (const std::length_error &e) {
        std::fprintf(stderr,
                     "cpcprof %s: the profile needs a larger structure than possible (%s)\n",
                     cmd.c_str(), e.what());
    }
    return 1;
}

namespace {

int dispatch(const std::string &cmd, const std::vector<std::string> &args) {
    if (cmd == "record")
        return cpcprof::record::record_main(args);
    if (cmd == "symbolize")
        return cpcprof::symbolize_profile::symbolize_main(args);
    if (cmd == "check")
        return cpcprof::check::check_main(args);
    if (cmd == "list")
        return cpcprof::list::list_main(args);
    if (cmd == "report")
        return cpcprof::report::report_main(args);
    if (cmd == "annotate")
        return cpcprof::report::annotate_main(args);
    if (cmd == "export")
        return cpcprof::exporter::export_main(args);
    if (cmd == "flamegraph")
        return cpcprof::flamegraph::flamegraph_main(args);
    if (cmd == "diff")
        return cpcprof::diff::diff_main(args);
    std::fprintf(stderr, "cpcprof: unknown command '%s'\n%s", cmd.c_str(), kUsage);
    return 2;
}

} // namespace
