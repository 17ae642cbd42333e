// SPDX-License-Identifier: MIT
#include "profiler/report/report_output.h"

#include "profiler/analysis/table_format.h"

#include "profiler/analysis/accounting_text.h"

#include <cstdio>

namespace cpcprof::report {

using analysis::Query;

namespace {

std::string derived_text(const DerivedColumn &d, const DerivedValue &v) {
    std::string s = d.kind == "miss_ratio" ? analysis::percent(v.value)
                                           : analysis::fixed(v.value, d.kind == "cpi" ? 3 : 2);
    return s + " (n=" + std::to_string(v.samples) + ")";
}

// The columns that name a row, per --by: headers, text cells, JSON
// members, CSV fields.
std::vector<std::string> key_headers(GroupBy by) {
    switch (by) {
    case GroupBy::line:
        return {"file:line", "function", "module"};
    case GroupBy::module:
        return {"module"};
    case GroupBy::thread:
        return {"tid", "pid", "thread"};
    case GroupBy::function:
        break;
    }
    return {"function", "module", "file:line"};
}

std::vector<std::string> key_cells(const analysis::HotspotRow &r, GroupBy by) {
    auto module = [](const std::string &m) { return m.empty() ? "?" : analysis::basename_of(m); };
    switch (by) {
    case GroupBy::line:
        return {analysis::location(r), r.function, module(r.module)};
    case GroupBy::module:
        return {r.module.empty() ? "[unknown]" : r.module};
    case GroupBy::thread:
        return {std::to_string(r.tid), std::to_string(r.pid), r.thread};
    case GroupBy::function:
        break;
    }
    return {r.function, module(r.module), analysis::location(r)};
}

std::vector<std::string> csv_keys(const analysis::HotspotRow &r, GroupBy by) {
    switch (by) {
    case GroupBy::module:
        return {r.module};
    case GroupBy::thread:
        return {std::to_string(r.pid), std::to_string(r.tid), r.thread};
    case GroupBy::line:
    case GroupBy::function:
        break;
    }
    return {r.function, r.module, r.file, r.line ? std::to_string(r.line) : ""};
}

std::vector<std::string> csv_key_headers(GroupBy by) {
    switch (by) {
    case GroupBy::module:
        return {"module"};
    case GroupBy::thread:
        return {"pid", "tid", "thread"};
    case GroupBy::line:
    case GroupBy::function:
        break;
    }
    return {"function", "module", "file", "line"};
}

std::string text_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows,
                       size_t all_rows) {
    const auto &events = c.q.events();
    const auto &total = c.q.total();
    bool thread = c.options.by == GroupBy::thread; // self == total
    analysis::Table t;
    for (const auto &e : events) {
        if (!thread)
            t.headers.push_back("self:" + e.name);
        t.headers.push_back((thread ? "" : "total:") + e.name);
    }
    t.headers.push_back("samples");
    if (!thread)
        t.headers.push_back("total-samples");
    for (const auto &d : c.derived)
        t.headers.push_back(d.name);
    t.left.assign(t.headers.size(), false);
    for (const std::string &h : key_headers(c.options.by)) {
        t.headers.push_back(h);
        t.left.push_back(h != "tid" && h != "pid");
    }
    for (const analysis::HotspotRow &r : rows) {
        std::vector<std::string> cells;
        for (size_t e = 0; e < events.size(); ++e) {
            if (!thread)
                cells.push_back(
                    analysis::percent(analysis::share(r.self.values[e], total.values[e])));
            cells.push_back(analysis::percent(analysis::share(r.total.values[e], total.values[e])));
        }
        cells.push_back(std::to_string(r.self.samples));
        if (!thread)
            cells.push_back(std::to_string(r.total.samples));
        for (const auto &d : c.derived)
            cells.push_back(derived_text(d, derive(d, r.self)));
        for (std::string &k : key_cells(r, c.options.by))
            cells.push_back(std::move(k));
        t.rows.push_back(std::move(cells));
    }
    std::string out = text_header(c) + "\n" + t.render();
    if (rows.size() < all_rows)
        out += "# " + std::to_string(rows.size()) + " of " + std::to_string(all_rows) +
               " rows (--top 0 shows all)\n";
    return out;
}

std::string csv_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows) {
    const auto &events = c.q.events();
    const auto &total = c.q.total();
    std::vector<std::string> head = csv_key_headers(c.options.by);
    head.push_back("self_samples");
    head.push_back("total_samples");
    for (const auto &e : events)
        for (const char *what : {"self_", "total_", "self_pct_", "total_pct_"})
            head.push_back(what + e.name);
    for (const auto &d : c.derived) {
        head.push_back(d.name);
        head.push_back(d.name + "_samples");
    }
    std::string out = analysis::csv_line(head);
    for (const analysis::HotspotRow &r : rows) {
        std::vector<std::string> f = csv_keys(r, c.options.by);
        f.push_back(std::to_string(r.self.samples));
        f.push_back(std::to_string(r.total.samples));
        for (size_t e = 0; e < events.size(); ++e) {
            f.push_back(std::to_string(r.self.values[e]));
            f.push_back(std::to_string(r.total.values[e]));
            auto pct = [](std::optional<double> s) {
                return s ? analysis::fixed(*s * 100, 4) : std::string();
            };
            f.push_back(pct(analysis::share(r.self.values[e], total.values[e])));
            f.push_back(pct(analysis::share(r.total.values[e], total.values[e])));
        }
        for (const auto &d : c.derived) {
            DerivedValue v = derive(d, r.self);
            f.push_back(v.value ? analysis::json_number(v.value) : "");
            f.push_back(std::to_string(v.samples));
        }
        out += analysis::csv_line(f);
    }
    return out;
}

} // namespace

std::optional<double> duration_s(const Query &q) {
    const auto &r = q.reader();
    if (!r.end_ns())
        return std::nullopt;
    return double(r.since_start(*r.end_ns())) / 1e9;
}

std::string text_header(const ReportContext &c) {
    const Query &q = c.q;
    const storage::RunInfo &run = q.reader().run();
    std::string out = "# file: " + c.options.file + "\n";
    out += "# command: " + analysis::shell_words(run.command) + "\n";
    out += "# events: " + analysis::events_text(q) + "\n";
    storage::Accounting acc = q.reader().accounting_total();
    out += "# samples: " + std::to_string(q.samples_kept()) + " kept / " +
           std::to_string(q.samples_read()) + " stored, " + std::to_string(acc.dropped) +
           " dropped" + analysis::losses_text({0, 0, 0, acc.unsampled_ns}) + "\n";
    std::string stacks =
        analysis::complete_stacks_text(q.samples_complete(), q.samples_kept(), run.call_graph);
    if (!stacks.empty())
        out += "# " + stacks + "\n";
    auto d = duration_s(q);
    out += "# duration: " +
           (d ? analysis::fixed(d, 3) + " s" : std::string("unknown (recording did not finish)")) +
           "\n";
    out += std::string("# hardware PMU: ") + (run.hw_pmu ? "yes" : "no") + "\n";
    if (std::string counters = analysis::counters_text(run); !counters.empty())
        out += "# counters: " + counters + "\n";
    if (!q.reader().symbolized() && !q.reader().file_format().symbol_tables) {
        out += "# modules without symbols: not symbolized (format version " +
               std::to_string(q.reader().file_format().version) + " has no symbol tables)\n";
    } else if (!q.reader().symbolized()) {
        out += "# modules without symbols: not symbolized (cpcprof symbolize " + c.options.file +
               ")\n";
    } else {
        std::string mods = analysis::modules_lacking_names_text(q);
        out += "# modules without symbols: " + (mods.empty() ? std::string("none") : mods) + "\n";
    }
    // What the recorder said about processes (a signal taken, sampling
    // stopped): the profile lacks those samples and nothing else shows why.
    for (const storage::Notice &n : q.reader().notices())
        out += "# notice: " + (n.pid == 0 ? "recording" : "process " + std::to_string(n.pid)) +
               ": " + n.text + "\n";
    const analysis::QueryFilter &f = q.filter();
    std::string filter;
    auto add = [&](const std::string &s) { filter += (filter.empty() ? "" : ", ") + s; };
    if (f.pid)
        add("pid " + std::to_string(*f.pid));
    if (f.tid)
        add("tid " + std::to_string(*f.tid));
    if (f.cpu)
        add("cpu " + std::to_string(*f.cpu));
    if (f.from_ns || f.to_ns)
        add("time [" + (f.from_ns ? analysis::fixed(double(*f.from_ns) / 1e9, 3) : std::string()) +
            ", " + (f.to_ns ? analysis::fixed(double(*f.to_ns) / 1e9, 3) : std::string()) + ") s");
    if (!f.inline_frames)
        add("inlined calls folded");
    for (const std::string &n : f.through)
        add("through " + n);
    for (const std::string &n : f.not_through)
        add("not through " + n);
    if (!filter.empty())
        out += "# filter: " + filter + "\n";
    return out;
}

std::string render_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows,
                         size_t all_rows) {
    switch (c.options.format) {
    case Format::json:
        return json_table(c, rows, all_rows);
    case Format::csv:
        return csv_table(c, rows);
    case Format::text:
        break;
    }
    return text_table(c, rows, all_rows);
}

} // namespace cpcprof::report
