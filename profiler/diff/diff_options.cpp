// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_options.h"

#include "base/args.h"

#include <cstdio>

namespace cpcprof::diff {

const char kDiffUsage[] =
    "usage: cpcprof diff BASE NEW [OPTIONS]\n"
    "\n"
    "How each function's share of the events changed from profile BASE to\n"
    "profile NEW: self and total share in both (each of its own run's total,\n"
    "so runs of different lengths compare) and the change in percentage\n"
    "points.  Functions are matched by name and module file name; those in\n"
    "one profile only are marked new or gone.\n"
    "\n"
    "  --fail-above PCT    exit 3 when a function's self share grew by more than\n"
    "                      PCT percentage points (a summary goes to stderr)\n"
    "  -o FILE             also write a differential flame graph of NEW, as a\n"
    "                      self-contained HTML page (- = stdout, no table then)\n"
    "  --top N             show the N largest changes (default 20; 0 = all)\n"
    "  --format text|json  the table's format on stdout (default text)\n"
    "%s"
    "The filter options apply to both profiles.  --event also chooses what\n"
    "orders the table, what --fail-above watches and what colours the flame\n"
    "graph (default: BASE's first event that NEW also has).\n"
    "\n"
    "Exit status: 0 compared, 1 a file refused or no event in common or an\n"
    "output not written, 2 usage error or unknown event, 3 --fail-above was\n"
    "exceeded.\n";

namespace {

constexpr const char kProgram[] = "cpcprof diff";

bool parse_value(const std::string &opt, const std::string &v, DiffOptions *o) {
    if (opt == "--format") {
        if (v == "text")
            o->format = Format::text;
        else if (v == "json")
            o->format = Format::json;
        else
            return base::usage_error(kProgram, "--format '%s': expected text or json", v.c_str());
    } else if (opt == "--top") {
        return view::parse_top(kProgram, v, &o->top);
    } else if (opt == "--fail-above") {
        auto p = base::parse_real(v);
        if (!p || *p < 0 || *p > 100)
            return base::usage_error(
                kProgram,
                "--fail-above '%s': expected percentage points between 0 and 100 "
                "(e.g. 2 or 0.5)",
                v.c_str());
        o->fail_above = *p;
    } else { // -o
        if (v.empty())
            return base::usage_error(kProgram,
                                     "-o needs a file name for the flame graph (- for stdout)");
        o->flame = v;
    }
    return true;
}

} // namespace

int parse_diff_options(const std::vector<std::string> &args, DiffOptions *o) {
    std::vector<std::string> files;
    base::ArgWalk walk{.program = kProgram,
                       .valued = {"--format", "--top", "--fail-above", "-o"},
                       // .shared: the filter options, added by walk_view_args
                       .value = [&](const std::string &opt,
                                    const std::string &v) { return parse_value(opt, v, o); },
                       .operand =
                           [&](const std::string &a) {
                               files.push_back(a);
                               return true;
                           }};
    int r = view::walk_view_args("diff", walk, &o->view, kDiffUsage, args);
    if (r <= 0)
        return r;
    if (files.size() != 2) {
        std::fprintf(stderr,
                     "cpcprof diff: expected two profiles, BASE and NEW (got %zu); usage: "
                     "cpcprof diff BASE NEW [OPTIONS]\n",
                     files.size());
        return -1;
    }
    o->base = files[0];
    o->now = files[1];
    return 1;
}

} // namespace cpcprof::diff
