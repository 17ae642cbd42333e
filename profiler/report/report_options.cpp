// SPDX-License-Identifier: MIT
#include "profiler/report/report_options.h"

#include "base/args.h"

#include <cstdio>

namespace cpcprof::report {

const char kReportUsage[] =
    "usage: cpcprof report [FILE] [OPTIONS]\n"
    "\n"
    "Where FILE's events went (default out.cpcprof): a table of the hottest\n"
    "functions (or lines, modules, threads) with each event's self and total\n"
    "share, or the callers / callees of a function as a tree.\n"
    "\n"
    "  --by function|line|module|thread   what a row is (default function)\n"
    "  --sort self|total|samples|name|EVENT\n"
    "                      order of the rows (default self: the weighing\n"
    "                      event's self cost; EVENT: that event's self cost)\n"
    "  --top N             show the first N rows (default 20; 0 = all)\n"
    "  --callers FUNC      the tree of FUNC's callers instead of the table\n"
    "  --callees FUNC      the tree of what FUNC calls instead of the table\n"
    "  --format text|json|csv   output format (default text)\n"
    "  -o FILE             write to FILE (atomically) instead of stdout\n"
    "%s"
    "\n"
    "Exit status: 0 shown (also when the filter keeps no sample), 1 file\n"
    "refused or output not written or FUNC unknown or ambiguous, 2 usage error.\n";

namespace {

constexpr const char kProgram[] = "cpcprof report";

bool parse_value(const std::string &opt, const std::string &v, ReportOptions *o) {
    if (opt == "--by") {
        if (v == "function")
            o->by = GroupBy::function;
        else if (v == "line")
            o->by = GroupBy::line;
        else if (v == "module")
            o->by = GroupBy::module;
        else if (v == "thread")
            o->by = GroupBy::thread;
        else
            return base::usage_error(
                kProgram, "--by '%s': expected function, line, module or thread", v.c_str());
    } else if (opt == "--format") {
        if (v == "text")
            o->format = Format::text;
        else if (v == "json")
            o->format = Format::json;
        else if (v == "csv")
            o->format = Format::csv;
        else
            return base::usage_error(kProgram, "--format '%s': expected text, json or csv",
                                     v.c_str());
    } else if (opt == "--top") {
        return view::parse_top(kProgram, v, &o->top);
    } else if (opt == "--sort") {
        if (v.empty())
            return base::usage_error(kProgram,
                                     "--sort needs a key: self, total, samples, name or an event");
        o->sort = v;
    } else if (opt == "--callers" || opt == "--callees") {
        if (v.empty())
            return base::usage_error(kProgram, "%s needs a function name", opt.c_str());
        (opt == "--callers" ? o->callers : o->callees) = v;
    } else { // -o
        if (v.empty())
            return base::usage_error(kProgram, "-o needs a file name (- for stdout)");
        o->output = v;
    }
    return true;
}

} // namespace

int parse_report_options(const std::vector<std::string> &args, ReportOptions *out) {
    bool have_file = false;
    base::ArgWalk walk{
        .program = kProgram,
        .valued = {"--by", "--format", "--top", "--sort", "--callers", "--callees", "-o"},
        // .shared: the filter options, added by walk_view_args
        .value = [&](const std::string &opt,
                     const std::string &v) { return parse_value(opt, v, out); },
        .operand =
            [&](const std::string &a) {
                if (have_file)
                    return base::usage_error(kProgram, "one profile at a time: '%s' after '%s'",
                                             a.c_str(), out->file.c_str());
                out->file = a;
                have_file = true;
                return true;
            }};
    int r = view::walk_view_args("report", walk, &out->view, kReportUsage, args);
    if (r <= 0)
        return r;
    if (!out->callers.empty() && !out->callees.empty()) {
        base::usage_error(kProgram, "--callers and --callees: one tree at a time");
        return -1;
    }
    return 1;
}

} // namespace cpcprof::report
