// SPDX-License-Identifier: MIT
// `cpcprof export` (export.h): options, then query, format, write.
#include "base/args.h"
#include "profiler/analysis/table_format.h"
#include "profiler/export/export.h"
#include "profiler/export/export_formats.h"
#include "profiler/view_common/view_options.h"

#include <cstdio>
#include <unistd.h>

namespace cpcprof::exporter {

namespace {

constexpr const char kCmd[] = "export";

const char kUsage[] =
    "usage: cpcprof export [FILE] --format folded|pprof|speedscope [-o OUT] [options]\n"
    "\n"
    "Writes the profile FILE (default out.cpcprof) for other tools:\n"
    "  folded      folded stacks, one line per distinct stack, root first:\n"
    "                main;compute;square 6000000\n"
    "              for flamegraph.pl, inferno, speedscope and most flame graph\n"
    "              viewers.  The value is the sum of --event's values (default:\n"
    "              the sampling event), or the number of samples with\n"
    "              --event samples; stacks worth 0 are left out.  ';' in a\n"
    "              name becomes ':', control characters become spaces.\n"
    "  pprof       pprof's profile.proto, gzipped, for `pprof`, Pyroscope and\n"
    "              Parca: one value per event plus the samples, per stack and\n"
    "              thread (labels pid, tid, thread), inlined calls as Lines of\n"
    "              one Location; --event picks the default sample type.\n"
    "  speedscope  speedscope's JSON: one sampled profile per thread, weighted\n"
    "              by --event (nanoseconds for cpu-clock and task-clock).\n"
    "A stack cut short by the recorder starts with the frame [truncated].\n"
    "\n"
    "  --format F          folded, pprof or speedscope; without it, OUT's name\n"
    "                      picks: .folded or .collapsed, .pb.gz or .pb, .json\n"
    "  -o OUT              where to write (default: - for stdout; pprof's\n"
    "                      binary data is not written to a terminal)\n"
    "  -h, --help          this text\n"
    "\n"
    "filter options:\n"
    "%s"
    "  --event samples     weigh stacks by their number of samples\n"
    "\n"
    "exit status: 0 written, 1 profile refused, output not written or more than\n"
    "16,777,216 frames to export, 2 usage error\n";

enum class Format { None, Folded, Pprof, Speedscope };

struct Options {
    view::ViewOptions view;
    std::string file = view::kDefaultProfile;
    std::string out = "-";
    Format format = Format::None;
};

bool ends_with(const std::string &s, const char *suffix) {
    std::string t(suffix);
    return s.size() > t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

Format format_named(const std::string &name) {
    if (name == "folded" || name == "collapsed")
        return Format::Folded;
    if (name == "pprof")
        return Format::Pprof;
    if (name == "speedscope")
        return Format::Speedscope;
    return Format::None;
}

Format format_of_path(const std::string &path) {
    if (ends_with(path, ".folded") || ends_with(path, ".collapsed"))
        return Format::Folded;
    if (ends_with(path, ".pb.gz") || ends_with(path, ".pb"))
        return Format::Pprof;
    if (ends_with(path, ".json"))
        return Format::Speedscope;
    return Format::None;
}

constexpr const char kProgram[] = "cpcprof export";
constexpr const char kHint[] = "(cpcprof export --help for usage)\n";

bool usage_error(const std::string &message) {
    base::usage_error_then(kProgram, message, kHint);
    return false;
}

// 1 with *o filled, 0 after --help (printed), -1 after a usage error
// (printed), as walk_view_args.
int parse(const std::vector<std::string> &args, Options *o) {
    bool have_file = false;
    base::ArgWalk walk{
        .program = kProgram,
        .valued = {"-o", "--format"},
        .value =
            [&](const std::string &opt, const std::string &v) {
                if (v.empty())
                    return usage_error(opt + " needs a value");
                if (opt == "-o")
                    o->out = v;
                else if ((o->format = format_named(v)) == Format::None)
                    return usage_error("unknown format '" + v + "' (folded, pprof or speedscope)");
                return true;
            },
        .operand =
            [&](const std::string &a) {
                if (have_file)
                    return usage_error("one profile at a time (extra argument '" + a + "')");
                o->file = a;
                have_file = true;
                return true;
            },
        .then = kHint};
    int r = view::walk_view_args(kCmd, walk, &o->view, kUsage, args);
    if (r <= 0)
        return r;
    if (o->format == Format::None && (o->format = format_of_path(o->out)) == Format::None) {
        usage_error(
            "--format folded, pprof or speedscope is required" +
            std::string(o->out == "-" ? "" : " (the name '" + o->out + "' does not tell which)"));
        return -1;
    }
    if (o->format == Format::Pprof && o->out == "-" && isatty(STDOUT_FILENO)) {
        usage_error("pprof data is binary: not written to a terminal (use -o OUT.pb.gz)");
        return -1;
    }
    return 1;
}

// The weight --event names: kSamples for "samples" (unless the profile has
// an event of that name), else the event's index; -2 when unknown
// (message printed).
int pick_weight(const analysis::Query &q, const view::ViewOptions &o) {
    if (o.event == kSamplesName && q.event_index(kSamplesName) < 0)
        return kSamples;
    if (q.events().empty() && o.event.empty())
        return kSamples; // nothing but stacks: count them
    int e = view::pick_event(kCmd, q, o);
    return e < 0 ? -2 : e;
}

// The frames an export writes: every format repeats a stack's frames for
// each distinct stack (folded: at most that; pprof and speedscope: for
// each stack and thread), so a file of deep, varied stacks (a staircase
// of 16,000 depths holds 128 M frames in a 2 MB file) asks for far more
// output than it holds.  Past kMaxExportFrames the export is refused.
constexpr uint64_t kMaxExportFrames = uint64_t{1} << 24;

uint64_t frames_to_write(const analysis::Query &q, Format format, int event) {
    auto depth = [&](size_t stack) -> uint64_t {
        return q.frame_nodes()[q.stack_leaf(stack)].depth + (q.stack_truncated(stack) ? 1 : 0);
    };
    uint64_t frames = 0;
    if (format == Format::Folded) {
        for (size_t i = 0; i < q.stack_count(); ++i)
            if (weight(q.stack_cost(i), event) != 0)
                frames = analysis::saturating_add(frames, depth(i));
        return frames;
    }
    for (const auto &st : q.stack_thread_costs())
        if (format == Format::Pprof || weight(st.cost, event) != 0)
            frames = analysis::saturating_add(frames, depth(st.stack));
    return frames;
}

std::string with_commas(uint64_t n) {
    std::string out;
    analysis::append_grouped(out, n);
    return out;
}

} // namespace

int export_main(const std::vector<std::string> &args) {
    Options o;
    int parsed = parse(args, &o), status = view::kExitOk;
    auto q = view::open_parsed(kCmd, parsed, o.file, o.view, &status);
    if (!q)
        return status;
    int event = pick_weight(*q, o.view);
    if (event == -2)
        return view::kExitUsage;
    view::warn_no_samples(kCmd, *q, "the export is empty");

    if (uint64_t frames = frames_to_write(*q, o.format, event); frames > kMaxExportFrames) {
        std::fprintf(stderr,
                     "cpcprof export: %s: the export would hold %s frames (its stacks repeated "
                     "per distinct stack), more than the %s it writes; keep fewer samples with "
                     "--pid, --tid or --time\n",
                     o.file.c_str(), with_commas(frames).c_str(),
                     with_commas(kMaxExportFrames).c_str());
        return view::kExitFailed;
    }

    std::string text;
    switch (o.format) {
    case Format::Folded:
        text = to_folded(*q, event);
        break;
    case Format::Speedscope:
        text = to_speedscope(*q, event, o.file);
        break;
    case Format::Pprof: {
        std::string error;
        if (!gzip(to_pprof(*q, event, o.file), &text, &error)) {
            std::fprintf(stderr, "cpcprof export: %s\n", error.c_str());
            return view::kExitFailed;
        }
        break;
    }
    case Format::None:
        return view::kExitUsage;
    }
    return view::write_output(kCmd, o.out, text) ? view::kExitOk : view::kExitFailed;
}

} // namespace cpcprof::exporter
