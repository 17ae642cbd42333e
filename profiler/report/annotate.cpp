// SPDX-License-Identifier: MIT
// cpcprof annotate: a function's source with the costs of each line.
#include "base/args.h"
#include "base/clock.h"
#include "profiler/analysis/hotspots.h"
#include "profiler/analysis/source_access.h"
#include "profiler/analysis/table_format.h"
#include "profiler/report/annotate_disasm.h"
#include "profiler/report/report.h"
#include "profiler/symbolize_profile/fetch_progress.h"
#include "profiler/view_common/view_options.h"
#include "symbolize/debuginfod.h"
#include "symbolize/symbolizer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

namespace cpcprof::report {

namespace {

const char kUsage[] =
    "usage: cpcprof annotate [FILE] FUNC [--source-dir DIR]... [--disassemble] [OPTIONS]\n"
    "\n"
    "FUNC's source lines from FILE (default out.cpcprof) with, beside each\n"
    "line that samples reached (marked >), its samples and the count of every\n"
    "event: self (the line was executing) and total (the line, or a call made\n"
    "from it, was).  FUNC is a function's name, or part of one; up to 5\n"
    "matching functions are each annotated.\n"
    "\n"
    "  --source-dir DIR    look for sources under DIR too: DIR/PATH, then DIR/PATH\n"
    "                      less leading directories, down to DIR/BASENAME\n"
    "                      (repeatable; tried in order, before PATH itself)\n"
    "  --path-map OLD=NEW  look for a file stored under the directory OLD under NEW\n"
    "                      (repeatable; the first OLD that matches is used)\n"
    "  --disassemble       FUNC's machine code (objdump) instead of its source: each\n"
    "                      instruction with its costs and its source line\n"
    "  --debug-dir DIR     look for separate debug files in DIR too (by build-id:\n"
    "                      DIR/.build-id/xx/rest.debug, and by .gnu_debuglink),\n"
    "                      before /usr/lib/debug (repeatable)\n"
    "  --debuginfod URL    ask the debuginfod server at URL for a debug file or\n"
    "                      source file this machine lacks (repeatable; default:\n"
    "                      the servers of DEBUGINFOD_URLS)\n"
    "  --debuginfod-wait SECONDS\n"
    "                      ask the servers for at most this long in all (default\n"
    "                      30, at most 3600; 0: do not ask them)\n"
    "\n"
    "Only regular files of at most 16 MiB under DIR, NEW or the directory the\n"
    "profile names are read: no '..', no symlink leading out of them, no FIFO\n"
    "or device; the reason a file was not shown goes to stderr.\n"
    "%s"
    "\n"
    "The share column (self%%) is of the --event event; with --event, only that\n"
    "event's counts are shown.\n"
    "\n"
    "Exit status: 0 shown (also without the source file), 1 file refused or\n"
    "FUNC unknown or ambiguous, 2 usage error.\n";

// Lines shown around the lines with samples.
constexpr uint32_t kContext = 3;

struct AnnotateOptions {
    view::ViewOptions view;
    std::string file = view::kDefaultProfile;
    std::string function;
    analysis::SourceRoots roots;
    bool disassemble = false;
    std::vector<std::string> debug_dirs;
    std::string servers; // from --debuginfod; "" = DEBUGINFOD_URLS
    uint64_t wait_s = 30;
};

constexpr uint64_t kMaxWaitS = 3600;

int parse(const std::vector<std::string> &args, AnnotateOptions *o) {
    constexpr const char kProgram[] = "cpcprof annotate";
    std::vector<std::string> positional;
    base::ArgWalk walk{
        .program = kProgram,
        .valued = {"--source-dir", "--path-map", "--debug-dir", "--debuginfod",
                   "--debuginfod-wait"},
        .shared =
            [&](const std::vector<std::string> &a, size_t *i) {
                if (a[*i] != "--disassemble")
                    return 0;
                o->disassemble = true;
                return 1;
            },
        .value =
            [&](const std::string &opt, const std::string &v) {
                if (opt == "--source-dir") {
                    if (v.empty())
                        return base::usage_error(kProgram, "--source-dir needs a directory");
                    o->roots.dirs.push_back(v);
                    return true;
                }
                if (opt == "--debug-dir") {
                    if (v.empty())
                        return base::usage_error(kProgram, "--debug-dir needs a directory");
                    // libdwfl looks up build-ids under absolute directories only.
                    std::error_code ec;
                    std::filesystem::path absolute = std::filesystem::absolute(v, ec);
                    o->debug_dirs.push_back(ec ? v : absolute.string());
                    return true;
                }
                if (opt == "--debuginfod") {
                    if (v.empty() || v.find_first_of(" \t\n") != std::string::npos)
                        return base::usage_error(kProgram, "--debuginfod takes one URL (repeat "
                                                           "it for more servers)");
                    o->servers += (o->servers.empty() ? "" : " ") + v;
                    return true;
                }
                if (opt == "--debuginfod-wait") {
                    char *end = nullptr;
                    errno = 0;
                    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
                    if (v.empty() || v[0] == '-' || *end != '\0' || errno != 0 || n > kMaxWaitS)
                        return base::usage_error(kProgram,
                                                 "--debuginfod-wait takes whole seconds from 0 "
                                                 "to %llu, not '%s'",
                                                 static_cast<unsigned long long>(kMaxWaitS),
                                                 v.c_str());
                    o->wait_s = n;
                    return true;
                }
                std::pair<std::string, std::string> map;
                std::string why;
                if (!analysis::parse_remap(v, &map, &why))
                    return base::usage_error(kProgram, "--path-map needs OLD=NEW: %s", why.c_str());
                o->roots.remaps.push_back(map);
                return true;
            },
        .operand =
            [&](const std::string &a) {
                positional.push_back(a);
                return true;
            },
        .missing =
            [&](const std::string &opt) {
                base::usage_error(kProgram, "%s",
                                  opt == "--source-dir"        ? "--source-dir needs a directory"
                                  : opt == "--debug-dir"       ? "--debug-dir needs a directory"
                                  : opt == "--debuginfod"      ? "--debuginfod needs a URL"
                                  : opt == "--debuginfod-wait" ? "--debuginfod-wait needs seconds"
                                                               : "--path-map needs OLD=NEW");
            }};
    int r = view::walk_view_args("annotate", walk, &o->view, kUsage, args);
    if (r <= 0)
        return r;
    if (positional.empty() || positional.size() > 2) {
        std::fprintf(stderr, "cpcprof annotate: expected [FILE] FUNC\n");
        return -1;
    }
    if (positional.size() == 2)
        o->file = positional[0];
    o->function = positional.back();
    return 1;
}

struct Columns {
    const analysis::Query &q;
    int weigh;
    std::vector<size_t> events; // the events whose counts are shown

    std::vector<std::string> headers() const {
        std::vector<std::string> h = {"self%:" + q.events()[size_t(weigh)].name, "samples",
                                      "total-samples"};
        for (size_t e : events) {
            h.push_back("self:" + q.events()[e].name);
            h.push_back("total:" + q.events()[e].name);
        }
        h.insert(h.end(), {"", "line", "source"});
        return h;
    }

    std::vector<std::string> cells(const analysis::Query::LineCost *lc, const std::string &line,
                                   const std::string &text) const {
        std::vector<std::string> c;
        if (lc == nullptr) {
            c.assign(3 + 2 * events.size(), "");
            c.insert(c.end(), {"", line, text});
            return c;
        }
        size_t w = size_t(weigh);
        c = {analysis::percent(analysis::share(lc->self.values[w], q.total().values[w])),
             std::to_string(lc->self.samples), std::to_string(lc->total.samples)};
        for (size_t e : events) {
            c.push_back(std::to_string(lc->self.values[e]));
            c.push_back(std::to_string(lc->total.values[e]));
        }
        c.insert(c.end(), {">", line, text});
        return c;
    }
};

// One source file's part of a function: every line with samples, and
// the source text around them when the file is found.
std::string annotate_file(const Columns &cols, const std::string &path,
                          const std::vector<const analysis::Query::LineCost *> &lines,
                          const analysis::SourceRoots &roots, symbolize::DebuginfodClient *client,
                          const std::string &module) {
    analysis::Table t;
    t.headers = cols.headers();
    t.left.assign(t.headers.size(), false);
    t.left[t.headers.size() - 3] = true;
    t.left.back() = true;
    std::string fetched_from;
    analysis::SourceFile src =
        path.empty() ? analysis::SourceFile{}
                     : analysis::open_source(path, roots, client, module, &fetched_from);
    std::optional<std::string> found;
    if (!src.path.empty())
        found = src.path;
    const std::vector<std::string> &text = src.lines;
    std::string out = "-- " + (path.empty() ? std::string("(no source file known)") : path);
    if (found && !fetched_from.empty()) {
        out += "  (fetched from " + fetched_from + ", cached at " + *found + ")\n";
    } else if (found) {
        out += *found == path ? "\n" : "  (read from " + *found + ")\n";
    } else if (!path.empty()) {
        out += "  (source not shown)\n";
        std::fprintf(stderr,
                     "cpcprof annotate: %s: source file not shown (%s); --source-dir DIR or "
                     "--path-map OLD=NEW says where the sources are\n",
                     path.c_str(), src.why_not.c_str());
    } else {
        out += "\n";
    }
    bool past_end = false;
    uint32_t shown = 0; // the last line shown
    for (size_t i = 0; i < lines.size(); ++i) {
        uint32_t ln = lines[i]->line;
        if (!found || ln == 0) {
            t.rows.push_back(cols.cells(lines[i], ln ? std::to_string(ln) : "?", ""));
            continue;
        }
        uint32_t from = ln > kContext ? ln - kContext : 1;
        if (shown != 0 && from > shown + 2)
            t.rows.push_back(cols.cells(nullptr, "...", ""));
        else if (shown != 0)
            from = shown + 1;
        for (uint32_t l = std::max(from, shown + 1); l < ln; ++l)
            if (l <= text.size())
                t.rows.push_back(cols.cells(nullptr, std::to_string(l), text[l - 1]));
        past_end = past_end || ln > text.size();
        t.rows.push_back(cols.cells(lines[i], std::to_string(ln),
                                    ln <= text.size() ? text[ln - 1] : "(past the file's end)"));
        shown = ln;
        uint32_t next = i + 1 < lines.size() ? lines[i + 1]->line : UINT32_MAX;
        for (uint32_t l = ln + 1; l <= ln + kContext && l < next && l <= text.size(); ++l) {
            t.rows.push_back(cols.cells(nullptr, std::to_string(l), text[l - 1]));
            shown = l;
        }
    }
    if (past_end)
        std::fprintf(stderr,
                     "cpcprof annotate: %s has fewer lines than the profile names: it changed "
                     "since the recording?\n",
                     found->c_str());
    return out + t.render();
}

std::string annotate_function(const Columns &cols, uint32_t fn,
                              const std::vector<analysis::Query::LineCost> &all,
                              const analysis::SourceRoots &roots,
                              symbolize::DebuginfodClient *client) {
    const analysis::Query &q = cols.q;
    const auto &info = q.functions()[fn];
    std::map<std::string, std::vector<const analysis::Query::LineCost *>> by_file;
    for (const auto &lc : all)
        if (lc.function == fn)
            by_file[q.files()[lc.file]].push_back(&lc);
    size_t w = size_t(cols.weigh);
    std::string out =
        "== " + info.name + "  (" + (info.module.empty() ? std::string("no module") : info.module) +
        "): " + std::to_string(q.function_self()[fn].samples) + " samples self, " +
        std::to_string(q.function_total()[fn].samples) + " total; " + q.events()[w].name + " " +
        analysis::percent(analysis::share(q.function_self()[fn].values[w], q.total().values[w])) +
        " self, " +
        analysis::percent(analysis::share(q.function_total()[fn].values[w], q.total().values[w])) +
        " total\n";
    for (auto &[file, lines] : by_file) {
        std::sort(lines.begin(), lines.end(), [](auto *a, auto *b) { return a->line < b->line; });
        out += annotate_file(cols, file, lines, roots, client, info.module);
    }
    if (!info.has_symbols)
        std::fprintf(stderr, "cpcprof annotate: %s has no line information (%s has no symbols)\n",
                     info.name.c_str(), info.module.empty() ? "its module" : info.module.c_str());
    return out;
}

} // namespace

int annotate_main(const std::vector<std::string> &args) {
    AnnotateOptions o;
    int parsed = parse(args, &o), status = view::kExitOk;
    auto q = view::open_parsed("annotate", parsed, o.file, o.view, &status);
    if (!q)
        return status;
    int weigh = view::pick_event("annotate", *q, o.view);
    if (weigh < 0)
        return q->events().empty() ? view::kExitFailed : view::kExitUsage;
    std::vector<uint32_t> fns;
    if (!analysis::match_functions("annotate", *q, o.function, &fns))
        return view::kExitFailed;
    Columns cols{*q, weigh, {}};
    for (size_t e = 0; e < q->events().size(); ++e)
        if (o.view.event.empty() || int(e) == weigh)
            cols.events.push_back(e);
    // Servers are asked through the client, with its bound; never by
    // libdwfl, which would wait without one.
    const std::string servers =
        o.servers.empty() ? symbolize::debuginfod_urls_from_environment() : o.servers;
    unsetenv("DEBUGINFOD_URLS");
    std::unique_ptr<symbolize::DebuginfodClient> client;
    symbolize_profile::FetchProgressLines progress(servers, "up to " + std::to_string(o.wait_s) +
                                                                " s in all, --debuginfod-wait");
    if (!servers.empty() && o.wait_s > 0) {
        std::string why;
        client = symbolize::DebuginfodClient::open(servers, &why);
        if (!client) {
            std::fprintf(stderr, "cpcprof annotate: debuginfod servers not asked: %s\n",
                         why.c_str());
        } else {
            client->set_deadline_ns(base::monotonic_ns() + int64_t(o.wait_s) * 1'000'000'000);
            client->on_progress([&](const symbolize::FetchProgress &p) { progress(p); });
        }
    }
    std::string out;
    if (o.disassemble) {
        analysis::DisassemblyOptions dopt;
        dopt.debug_dirs = o.debug_dirs;
        dopt.debuginfod = client.get();
        bool any = false;
        for (size_t i = 0; i < fns.size(); ++i) {
            bool ok = false;
            out +=
                (i ? "\n" : "") + annotate_disassembly(*q, weigh, cols.events, fns[i], dopt, &ok);
            any = any || ok;
        }
        progress.end_line();
        if (!view::write_output("annotate", "-", out))
            return view::kExitFailed;
        return any ? view::kExitOk : view::kExitFailed;
    }
    std::vector<analysis::Query::LineCost> lines = q->line_costs();
    for (size_t i = 0; i < fns.size(); ++i)
        out += (i ? "\n" : "") + annotate_function(cols, fns[i], lines, o.roots, client.get());
    progress.end_line();
    return view::write_output("annotate", "-", out) ? view::kExitOk : view::kExitFailed;
}

} // namespace cpcprof::report
