// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_options.h"

#include "base/args.h"

#include <cstdio>

namespace cpcprof::diff {

const char kDiffUsage[] =
    "usage: cpcprof diff BASE NEW [OPTIONS]\n"
    "       cpcprof diff BASE... -- NEW... [OPTIONS]\n"
    "\n"
    "How each function's share of the events changed from profile BASE to\n"
    "profile NEW: self and total share in both (each of its own run's total,\n"
    "so runs of different lengths compare), the change in percentage points\n"
    "with its confidence interval, and whether it is more than noise.\n"
    "Functions are matched by name and module file name; those in one\n"
    "profile only are marked new or gone.  Several runs a side (the files\n"
    "before -- are BASE's, those after it NEW's) measure the run-to-run\n"
    "spread: Welch's t-test over the runs; with one run a side, the samples'\n"
    "own noise (a two-proportion z-test).\n"
    "\n"
    "  --fail-above PCT    exit 3 when a function's self share grew by more than\n"
    "                      PCT percentage points and the growth is not noise\n"
    "                      (a summary goes to stderr)\n"
    "  --confidence PCT    the tests' confidence, in percent (default 99)\n"
    "  --metric share|time compare shares of each run's total (default), or\n"
    "                      the costs themselves (CPU time for the clocks) of runs\n"
    "                      that did the same work, in points of BASE's total\n"
    "  --junit FILE        also write the gate's verdicts as JUnit XML\n"
    "  --markdown FILE     also write a short Markdown summary (a CI job summary)\n"
    "  -o FILE             also write a differential flame graph of NEW, as a\n"
    "                      self-contained HTML page (- = stdout, no table then)\n"
    "  --top N             show the N largest changes (default 20; 0 = all)\n"
    "  --format text|json  the table's format on stdout (default text)\n"
    "%s"
    "The filter options apply to every profile.  --event also chooses what\n"
    "orders the table, what --fail-above watches and what colours the flame\n"
    "graph (default: BASE's first event that every profile has).\n"
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
    } else if (opt == "--metric") {
        if (v == "share")
            o->metric = analysis::Metric::share;
        else if (v == "time")
            o->metric = analysis::Metric::time;
        else
            return base::usage_error(kProgram, "--metric '%s': expected share or time", v.c_str());
    } else if (opt == "--confidence") {
        auto p = base::parse_real(v);
        if (!p || *p < 50 || *p >= 100)
            return base::usage_error(
                kProgram, "--confidence '%s': expected a percentage from 50 to below 100 (e.g. 99)",
                v.c_str());
        o->confidence = *p / 100;
    } else if (opt == "--junit" || opt == "--markdown") {
        if (v.empty())
            return base::usage_error(kProgram, "%s needs a file name", opt.c_str());
        (opt == "--junit" ? o->junit : o->markdown) = v;
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
    // "--" parts BASE's runs from NEW's: the walk sees it as an operand.
    const std::string kParting = std::string(1, '\x01') + "--";
    std::vector<std::string> walked = args;
    size_t partings = 0;
    for (std::string &a : walked)
        if (a == "--") {
            a = kParting;
            ++partings;
        }
    if (partings > 1) {
        std::fprintf(stderr, "cpcprof diff: '--' parts BASE's runs from NEW's: give it once\n");
        return -1;
    }
    std::vector<std::string> before, after;
    bool parted = false;
    base::ArgWalk walk{.program = kProgram,
                       .valued = {"--format", "--top", "--fail-above", "-o", "--confidence",
                                  "--metric", "--junit", "--markdown"},
                       // .shared: the filter options, added by walk_view_args
                       .value = [&](const std::string &opt,
                                    const std::string &v) { return parse_value(opt, v, o); },
                       .operand =
                           [&](const std::string &a) {
                               if (a == kParting)
                                   parted = true;
                               else
                                   (parted ? after : before).push_back(a);
                               return true;
                           }};
    int r = view::walk_view_args("diff", walk, &o->view, kDiffUsage, walked);
    if (r <= 0)
        return r;
    if (parted) {
        if (before.empty() || after.empty()) {
            std::fprintf(stderr,
                         "cpcprof diff: expected BASE's runs before -- and NEW's after it (got "
                         "%zu and %zu); usage: cpcprof diff BASE... -- NEW... [OPTIONS]\n",
                         before.size(), after.size());
            return -1;
        }
        o->base = before;
        o->now = after;
        return 1;
    }
    if (before.size() != 2) {
        std::fprintf(stderr,
                     "cpcprof diff: expected two profiles, BASE and NEW (got %zu), or several "
                     "runs a side parted by --; usage: cpcprof diff BASE NEW [OPTIONS]\n",
                     before.size());
        return -1;
    }
    o->base = {before[0]};
    o->now = {before[1]};
    return 1;
}

} // namespace cpcprof::diff
