// SPDX-License-Identifier: MIT
// `cpcprof flamegraph` (flamegraph.h): options, then query, model, render, write.
#include "base/args.h"
#include "profiler/analysis/flame_model.h"
#include "profiler/analysis/flame_render.h"
#include "profiler/analysis/flame_text.h"
#include "profiler/flamegraph/flamegraph.h"
#include "profiler/view_common/view_options.h"

#include "profiler/analysis/accounting_text.h"

#include <cstdio>

namespace cpcprof::flamegraph {

namespace {

constexpr const char kCmd[] = "flamegraph";

const char kUsage[] =
    "usage: cpcprof flamegraph [FILE] -o OUT.svg|OUT.html|- [options]\n"
    "\n"
    "Draws the profile FILE (default out.cpcprof) as a flame graph: one box per\n"
    "function on a call path, as wide as its share of the samples, callers\n"
    "below callees.  Click a box to zoom into it; search names; hover for counts.\n"
    "\n"
    "  -o PATH             where to write; the extension picks the format:\n"
    "                        .svg   static picture (tooltips; zoom and search\n"
    "                               when opened in a browser); frames under\n"
    "                               0.1%% of the total are left out\n"
    "                        .html  interactive page, self-contained (no\n"
    "                               network); frames under 0.01%% left out\n"
    "                        -      the HTML page on stdout\n"
    "  --inverted          icicle graph of the bottom-up tree: the functions that\n"
    "                      took the samples at the top, their callers below\n"
    "  --title TEXT        the title (default: \"Flame graph: FILE\")\n"
    "  -h, --help          this text\n"
    "\n"
    "filter options:\n"
    "%s"
    "\n"
    "With several events, --event picks the width of the boxes; the HTML page\n"
    "can switch between them.\n"
    "\n"
    "exit status: 0 written, 1 profile refused or output not written, 2 usage error\n";

enum class Format { Svg, Html };

bool ends_with(const std::string &s, const char *suffix) {
    std::string t(suffix);
    return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

struct Options {
    view::ViewOptions view;
    std::string file = view::kDefaultProfile;
    std::string out;
    std::string title;
    bool inverted = false;
    Format format = Format::Html;
};

constexpr const char kProgram[] = "cpcprof flamegraph";
constexpr const char kHint[] = "(cpcprof flamegraph --help for usage)\n";

bool usage_error(const std::string &message) {
    base::usage_error_then(kProgram, message, kHint);
    return false;
}

// 1 with *o filled, 0 after --help (printed), -1 after a usage error
// (printed), as walk_view_args.
int parse(const std::vector<std::string> &args, Options *o) {
    bool have_file = false;
    base::ArgWalk walk{.program = kProgram,
                       .valued = {"-o", "--title"},
                       .shared =
                           [&](const std::vector<std::string> &a, size_t *i) {
                               if (a[*i] != "--inverted")
                                   return 0;
                               o->inverted = true;
                               return 1;
                           },
                       .value =
                           [&](const std::string &opt, const std::string &v) {
                               (opt == "-o" ? o->out : o->title) = v;
                               if (opt == "-o" && v.empty())
                                   return usage_error("-o needs a file name");
                               return true;
                           },
                       .operand =
                           [&](const std::string &a) {
                               if (have_file)
                                   return usage_error("one profile at a time (extra argument '" +
                                                      a + "')");
                               o->file = a;
                               have_file = true;
                               return true;
                           },
                       .then = kHint};
    int r = view::walk_view_args(kCmd, walk, &o->view, kUsage, args);
    if (r <= 0)
        return r;
    if (o->out.empty()) {
        usage_error("-o OUT.svg, -o OUT.html or -o - is required");
        return -1;
    }
    if (o->out == "-" || ends_with(o->out, ".html") || ends_with(o->out, ".htm")) {
        o->format = Format::Html;
    } else if (ends_with(o->out, ".svg")) {
        o->format = Format::Svg;
    } else {
        usage_error("-o '" + o->out +
                    "': the name must end in .svg or .html (or be - for HTML on stdout)");
        return -1;
    }
    return 1;
}

// What was read, for the line under the title.
std::string describe(const analysis::Query &q, const Options &o, int event) {
    std::string s = o.file + ": ";
    append_grouped(s, q.samples_kept());
    s += q.samples_kept() == 1 ? " sample" : " samples";
    if (q.samples_kept() != q.samples_read()) {
        s += " of ";
        append_grouped(s, q.samples_read());
    }
    const analysis::QueryFilter &f = o.view.filter;
    if (f.pid)
        s += ", pid " + std::to_string(*f.pid);
    if (f.tid)
        s += ", tid " + std::to_string(*f.tid);
    if (f.cpu)
        s += ", cpu " + std::to_string(*f.cpu);
    if (f.from_ns || f.to_ns) {
        s += ", time ";
        if (f.from_ns)
            append_fixed(s, double(*f.from_ns) / 1e9, 3);
        s += "..";
        if (f.to_ns)
            append_fixed(s, double(*f.to_ns) / 1e9, 3);
        s += " s";
    }
    if (!f.inline_frames)
        s += ", inlined calls folded";
    for (const std::string &n : f.through)
        s += ", through " + n;
    for (const std::string &n : f.not_through)
        s += ", not through " + n;
    s += "; width: " + q.events()[size_t(event)].name;
    if (o.inverted)
        s += "; inverted (callers below)";
    std::string stacks = analysis::complete_stacks_text(q.samples_complete(), q.samples_kept(),
                                                        q.reader().run().call_graph);
    if (!stacks.empty()) {
        s += "; " + stacks;
        if (q.samples_complete() < q.samples_kept() && q.reader().run().call_graph != "none")
            s += ", the cut ones under [truncated]";
    }
    return s;
}

} // namespace

int flamegraph_main(const std::vector<std::string> &args) {
    Options o;
    int parsed = parse(args, &o), status = view::kExitOk;
    auto q = view::open_parsed(kCmd, parsed, o.file, o.view, &status);
    if (!q)
        return status;
    int event = view::pick_event(kCmd, *q, o.view);
    if (event < 0)
        return q->events().empty() ? view::kExitFailed : view::kExitUsage;
    if (!view::warn_no_samples(kCmd, *q, "the graph is empty") &&
        q->total().values[size_t(event)] == 0)
        std::fprintf(stderr,
                     "cpcprof flamegraph: the kept samples counted no %s; the graph "
                     "is empty\n",
                     q->events()[size_t(event)].name.c_str());

    RenderOptions ro;
    ro.title =
        o.title.empty() ? (o.inverted ? "Icicle graph: " : "Flame graph: ") + o.file : o.title;
    ro.subtitle = describe(*q, o, event);
    ro.event = event;
    ro.inverted = o.inverted;
    std::string text;
    if (o.format == Format::Svg) {
        analysis::FlameModel m = analysis::build_model(*q, o.inverted, {event}, kSvgMinShare);
        if (m.pruned > 0)
            std::fprintf(stderr,
                         "cpcprof flamegraph: %zu call tree nodes narrower than 0.1%% of %s "
                         "not drawn\n",
                         m.pruned, q->events()[size_t(event)].name.c_str());
        text = render_svg(*q, m, ro);
    } else {
        std::vector<int> weights{-1};
        for (size_t e = 0; e < q->events().size(); ++e)
            weights.push_back(int(e));
        analysis::FlameModel m = analysis::build_model(*q, o.inverted, weights, kHtmlMinShare);
        text = render_html(*q, m, ro);
    }
    return view::write_output(kCmd, o.out, text) ? view::kExitOk : view::kExitFailed;
}

} // namespace cpcprof::flamegraph
