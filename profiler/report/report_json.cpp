// SPDX-License-Identifier: MIT
// The JSON documents of report (docs/profiler.md, "cpcprof report"):
// built as analysis::Json values and written in analysis::json_layout's layout.
#include "profiler/report/report_output.h"

#include "profiler/analysis/table_format.h"

namespace cpcprof::report {

using analysis::Cost;
using analysis::Json;
using analysis::Query;

namespace {

const char *by_name(GroupBy by) {
    switch (by) {
    case GroupBy::line:
        return "line";
    case GroupBy::module:
        return "module";
    case GroupBy::thread:
        return "thread";
    case GroupBy::function:
        break;
    }
    return "function";
}

// A number, or null for nothing.
Json number_or_null(std::optional<double> v) {
    return v ? Json(*v) : Json(nullptr);
}

Json json_keys(const analysis::HotspotRow &r, GroupBy by) {
    Json keys = Json::object();
    switch (by) {
    case GroupBy::module:
        keys["module"] = r.module;
        return keys;
    case GroupBy::thread:
        keys["pid"] = r.pid;
        keys["tid"] = r.tid;
        keys["thread"] = r.thread;
        return keys;
    case GroupBy::line:
    case GroupBy::function:
        break;
    }
    keys["function"] = r.function;
    keys["module"] = r.module;
    keys["file"] = r.file;
    keys["line"] = r.line ? Json(r.line) : Json(nullptr);
    return keys;
}

// "samples": what was kept, stored, dropped, taken and not sampled.
Json samples_json(const Query &q) {
    storage::Accounting acc = q.reader().accounting_total();
    Json samples = Json::object();
    samples["kept"] = q.samples_kept();
    samples["stored"] = q.samples_read();
    samples["dropped"] = acc.dropped;
    samples["taken"] = acc.taken;
    samples["unsampled_cpu_s"] = double(acc.unsampled_ns) / 1e9;
    samples["complete_stacks"] = q.samples_complete();
    return samples;
}

Json filter_json(const analysis::QueryFilter &f) {
    auto secs = [](const std::optional<int64_t> &ns) {
        return ns ? Json(double(*ns) / 1e9) : Json(nullptr);
    };
    Json filter = Json::object();
    filter["pid"] = f.pid ? Json(*f.pid) : Json(nullptr);
    filter["tid"] = f.tid ? Json(*f.tid) : Json(nullptr);
    filter["cpu"] = f.cpu ? Json(*f.cpu) : Json(nullptr);
    filter["from_s"] = secs(f.from_ns);
    filter["to_s"] = secs(f.to_ns);
    filter["inline"] = f.inline_frames;
    filter["through"] = f.through;
    filter["not_through"] = f.not_through;
    return filter;
}

Json run_json(const Query &q) {
    Json run = Json::object();
    run["command"] = q.reader().run().command;
    run["duration_s"] = number_or_null(duration_s(q));
    run["hw_pmu"] = q.reader().run().hw_pmu;
    // libcpc's backend and why (both "" when the profile does not say).
    run["counters"] = q.reader().run().counters;
    run["counters_reason"] = q.reader().run().counters_reason;
    run["complete"] = q.reader().complete();
    // Why the recorder cut the recording short (a full disk), or null.
    if (auto why = q.reader().cut_short())
        run["cut_short"] = *why;
    else
        run["cut_short"] = nullptr;
    run["symbolized"] = q.reader().symbolized();
    run["samples"] = samples_json(q);
    // Empty when never symbolized (`symbolized` says so), as before.
    Json &paths = run["modules_without_symbols"] = Json::array();
    Json &counts = run["modules_without_symbols_samples"] = Json::array();
    if (q.reader().symbolized())
        for (const Query::ModuleCost &m : q.modules_lacking_names()) {
            paths.push_back(m.path);
            counts.push_back(m.cost.samples);
        }
    run["filter"] = filter_json(q.filter());
    return run;
}

} // namespace

Json cost_json(const Query &q, const Cost &cost) {
    Json values = Json::array(), shares = Json::array();
    for (size_t e = 0; e < cost.values.size(); ++e) {
        values.push_back(cost.values[e]);
        shares.push_back(number_or_null(analysis::share(cost.values[e], q.total().values[e])));
    }
    Json out = Json::object();
    out["samples"] = cost.samples;
    out["values"] = std::move(values);
    out["shares"] = std::move(shares);
    return out;
}

std::string json_cost(const Query &q, const Cost &cost) {
    return analysis::json_inline(cost_json(q, cost));
}

Json preamble_json(const ReportContext &c) {
    const Query &q = c.q;
    Json doc = Json::object();
    doc["format"] = "cpcprof-report";
    doc["version"] = 1;
    doc["file"] = c.options.file;
    doc["run"] = run_json(q);
    Json &events = doc["events"] = Json::array();
    for (size_t i = 0; i < q.events().size(); ++i) {
        const auto &e = q.events()[i];
        Json event = Json::object();
        event["name"] = e.name;
        event["period"] = e.period;
        event["sampling"] = e.sampling;
        event["total"] = q.total().values[i];
        events.push_back(std::move(event));
    }
    doc["weigh_event"] =
        q.events().empty() ? Json(nullptr) : Json(q.events()[size_t(c.weigh)].name);
    Json &derived = doc["derived"] = Json::array();
    for (const DerivedColumn &d : c.derived) {
        Json column = Json::object();
        column["name"] = d.name;
        column["kind"] = d.kind;
        column["numerator"] = q.events()[size_t(d.numerator)].name;
        column["denominator"] = q.events()[size_t(d.denominator)].name;
        derived.push_back(std::move(column));
    }
    return doc;
}

std::string json_preamble(const ReportContext &c) {
    return analysis::json_members(preamble_json(c)) + ",\n";
}

std::string json_table(const ReportContext &c, const std::vector<analysis::HotspotRow> &rows,
                       size_t all_rows) {
    Json doc = preamble_json(c);
    doc["by"] = by_name(c.options.by);
    doc["sort"] = c.options.sort;
    doc["rows_total"] = all_rows;
    Json &out = doc["rows"] = Json::array();
    for (const analysis::HotspotRow &r : rows) {
        Json row = json_keys(r, c.options.by);
        row["self"] = cost_json(c.q, r.self);
        row["total"] = cost_json(c.q, r.total);
        Json &derived = row["derived"] = Json::array();
        for (const DerivedColumn &d : c.derived) {
            DerivedValue v = derive(d, r.self);
            Json figure = Json::object();
            figure["name"] = d.name;
            figure["value"] = number_or_null(v.value);
            figure["samples"] = v.samples;
            derived.push_back(std::move(figure));
        }
        out.push_back(std::move(row));
    }
    return analysis::json_document(doc, {"rows"});
}

} // namespace cpcprof::report
