// SPDX-License-Identifier: MIT
#include "gui/model/summary.h"

#include "profiler/analysis/accounting_text.h"
#include "profiler/analysis/table_format.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <signal.h>

namespace cpcprof::gui {

using analysis::Query;

namespace {

std::string realtime_text(int64_t ns) {
    time_t t = time_t(ns / 1000000000);
    struct tm tm {};
    if (gmtime_r(&t, &tm) == nullptr)
        return "unknown";
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

double share_of(uint64_t part, uint64_t whole) {
    return whole == 0 ? 0.0 : double(part) / double(whole);
}

} // namespace

std::string process_end_text(const storage::ProcessRecord &p) {
    if (p.killed_by_signal) {
        const char *abbrev = sigabbrev_np(*p.killed_by_signal);
        return "killed by signal " + std::to_string(*p.killed_by_signal) +
               (abbrev ? std::string(" (SIG") + abbrev + ")" : std::string());
    }
    if (p.exit_status)
        return "exit " + std::to_string(*p.exit_status);
    if (p.end_ns)
        return "ended, how not known"; // its parent reaped it before it could be read
    return "running at the end";
}

Summary make_summary(const ProfileData &profile, int event, size_t top) {
    Summary s;
    const Query &q = *profile.query;
    const storage::Reader &r = q.reader();
    const storage::RunInfo &run = r.run();
    auto add = [&](std::string label, std::string value) {
        s.lines.push_back({std::move(label), std::move(value)});
    };
    add("file", profile.path);
    add("command", analysis::shell_words(run.command));
    add("started", realtime_text(run.start_ns));
    add("duration", r.end_ns() ? analysis::fixed(double(r.since_start(*r.end_ns())) / 1e9, 3) + " s"
                               : std::string("unknown (recording did not finish)"));
    add("host", run.host);
    add("kernel", run.kernel);
    add("CPU", run.cpu_model);
    add("hardware PMU", run.hw_pmu ? "yes" : "no");
    if (std::string counters = analysis::counters_text(run); !counters.empty())
        add("counters", counters);
    add("call graph", run.call_graph + " (at most " + std::to_string(run.max_depth) + " frames)");
    add("events", analysis::events_text(q));
    for (const storage::ProcessRecord &p : r.processes()) {
        std::string name = p.info.argv.empty() ? p.info.exe : p.info.argv[0];
        add("process " + std::to_string(p.info.pid), name + ": " + process_end_text(p));
    }
    std::string threads;
    for (const storage::ThreadInfo &t : r.threads())
        threads += (threads.empty() ? "" : ", ") + t.name + " (" + std::to_string(t.tid) + ")";
    add("threads", std::to_string(r.threads().size()) + (threads.empty() ? "" : ": " + threads));
    storage::Accounting acc = r.accounting_total();
    add("samples", std::to_string(q.samples_kept()) + " kept / " +
                       std::to_string(q.samples_read()) + " stored, " +
                       std::to_string(acc.dropped) + " dropped" +
                       analysis::losses_text({0, 0, 0, acc.unsampled_ns}));
    add("overflows", std::to_string(acc.taken) + " taken, " + std::to_string(acc.stored) +
                         " stored, " + std::to_string(acc.dropped) + " dropped" +
                         (acc.balanced() ? "" : " (does not balance: taken != stored + dropped)"));
    std::string stacks =
        analysis::complete_stacks_text(q.samples_complete(), q.samples_kept(), run.call_graph);
    if (!stacks.empty())
        add("stacks", stacks.substr(stacks.find(':') + 2) + " complete");
    for (const storage::Notice &n : r.notices())
        add("notice",
            (n.pid == 0 ? "recording" : "process " + std::to_string(n.pid)) + ": " + n.text);

    if (!r.symbolized() && !r.file_format().symbol_tables) {
        s.symbols_fix = "The profile is not symbolized, and its format (version " +
                        std::to_string(r.file_format().version) +
                        ") has no symbol tables: record the program again for function names";
    } else if (!r.symbolized()) {
        s.symbols_fix = "The profile is not symbolized: run  cpcprof symbolize " + profile.path;
    } else {
        for (const Query::ModuleCost &m : q.modules_lacking_names()) {
            char share[64];
            std::snprintf(share, sizeof share, " (on the stack of %.1f %% of the samples)",
                          100.0 * share_of(m.cost.samples, q.samples_kept()));
            s.modules_without_symbols.push_back(m.path + share);
        }
        if (!s.modules_without_symbols.empty())
            s.symbols_fix = "Install the debug symbols of these modules (the -dbgsym package of "
                            "the package that has the file: dpkg -S FILE names it), then run  "
                            "cpcprof symbolize " +
                            profile.path;
    }

    const auto &functions = q.functions();
    const auto &self = q.function_self();
    const auto &total = q.function_total();
    size_t e = size_t(std::max(event, 0));
    uint64_t whole = e < q.total().values.size() ? q.total().values[e] : 0;
    auto value = [&](const analysis::Cost &c) { return e < c.values.size() ? c.values[e] : 0; };
    // The top few of the functions with self cost: a partial sort (a
    // profile may hold 100,000 functions, and this runs on every switch).
    std::vector<uint32_t> order;
    for (uint32_t f = 0; f < functions.size(); ++f)
        if (value(self[f]) != 0)
            order.push_back(f);
    const size_t shown = std::min(top, order.size());
    std::partial_sort(order.begin(), order.begin() + ptrdiff_t(shown), order.end(),
                      [&](uint32_t a, uint32_t b) {
                          uint64_t va = value(self[a]), vb = value(self[b]);
                          return va != vb ? va > vb : functions[a].name < functions[b].name;
                      });
    order.resize(shown);
    for (uint32_t f : order) {
        s.top.push_back({functions[f].name, functions[f].module, share_of(value(self[f]), whole),
                         share_of(value(total[f]), whole), self[f].samples});
    }
    return s;
}

} // namespace cpcprof::gui
