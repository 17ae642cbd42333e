// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_output.h"

#include "profiler/analysis/event_units.h"
#include "profiler/analysis/json_layout.h"  // Json, json_document
#include "profiler/analysis/table_format.h" // Table, percent, fixed

#include <cmath>
#include <cstdio>

namespace cpcprof::diff {

using analysis::Json;
using analysis::percent;

std::string signed_fixed(std::optional<double> v) {
    if (!v || !std::isfinite(*v))
        return "-";
    if (std::fabs(*v) < 0.005)
        return "0.00";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f", *v);
    return buf;
}

std::string interval_text(const std::optional<analysis::Judgement> &j) {
    if (!j)
        return "-";
    auto end = [](double v) { return std::isfinite(v) ? signed_fixed(v) : std::string("inf"); };
    return "[" + end(j->low) + ", " + end(j->high) + "]";
}

std::string confidence_text(double confidence) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "the %g %% interval", confidence * 100);
    return buf;
}

namespace {

std::string joined(const std::vector<std::string> &words) {
    std::string s;
    for (const auto &w : words)
        s += (s.empty() ? "" : ", ") + w;
    return s;
}

std::string seconds_text(std::optional<double> s) {
    return s ? analysis::fixed(*s, 3) + " s" : std::string("unknown length (recording unfinished)");
}

std::string side_line(const char *label, const analysis::SideInfo &s, size_t e) {
    std::string who = s.file;
    if (s.runs.size() > 1) {
        std::vector<std::string> files;
        for (const auto &r : s.runs)
            files.push_back(r.file);
        who = std::to_string(s.runs.size()) + " runs (" + joined(files) + ")";
    }
    return std::string("# ") + label + who + ": " + std::to_string(s.samples) + " samples, " +
           seconds_text(s.seconds) + ", " + std::to_string(s.totals[e]) + " in total\n";
}

std::string module_cell(const analysis::FunctionDiff &f) {
    return f.module.empty() ? "?" : f.module;
}

// A side's cost of f as the table shows it: the share (metric share), or
// the mean per run in the event's unit (metric time).
std::string side_cell(const TableInput &t, const analysis::SideInfo &side,
                      const analysis::SideCost &cost, bool self) {
    const size_t e = t.event;
    const auto &values = self ? cost.self : cost.total;
    if (t.gate.metric == analysis::Metric::share)
        return percent(t.c.share(side, values, e));
    const double mean = double(values[e]) / double(side.runs.size());
    std::string out;
    if (analysis::is_time_event(t.c.events[e])) {
        analysis::append_grouped(out, uint64_t(mean / 1e6));
        char frac[8];
        std::snprintf(frac, sizeof frac, ".%d", int(std::fmod(mean / 1e5, 10.0)));
        return out + frac + " ms";
    }
    analysis::append_grouped(out, uint64_t(std::llround(mean)));
    return out;
}

std::optional<analysis::Judgement> judged(const TableInput &t, const analysis::FunctionDiff &f,
                                          bool self) {
    return analysis::judge(t.c, f, t.event, self, t.gate);
}

std::string verdict_cell(const std::optional<analysis::Judgement> &j) {
    if (!j)
        return "-";
    return j->verdict == analysis::Verdict::regression ? "REGRESSION"
                                                       : analysis::verdict_name(j->verdict);
}

std::string method_of(const TableInput &t) {
    return analysis::method_name(analysis::method_for(t.c, t.gate.metric));
}

std::string metric_text(const TableInput &t) {
    return t.gate.metric == analysis::Metric::share
               ? "shares are of each run's own total, changes in percentage points (pp)"
               : "costs are means per run, changes in points (pp) of base's mean total";
}

// A line that says the sides' runs went at different paces, or "".
std::string pace_text(const TableInput &t, const char *prefix) {
    auto pace = analysis::pace_change(t.c, t.event);
    if (!pace)
        return "";
    return std::string(prefix) + "the runs went at different paces: " + t.c.events[t.event] +
           " per run " + analysis::fixed(pace->base_mean, 0) + " in base, " +
           analysis::fixed(pace->new_mean, 0) + " in new (" +
           signed_fixed((pace->new_mean / pace->base_mean - 1) * 100) +
           " %): if they did the same work, the machine ran at another speed, and the shares of "
           "code whose speed depends on it (memory-bound loops) move with it; record both sides "
           "on the same runner, alternately (docs/ci.md, \"Noise\")\n";
}

} // namespace

std::string render_text(const TableInput &t) {
    const analysis::Comparison &c = t.c;
    size_t e = t.event;
    std::string out = side_line("base: ", c.base, e) + side_line("new:  ", c.now, e);
    out += "# event: " + c.events[e] + "; " + metric_text(t) + "\n";
    out += "# intervals: " + confidence_text(t.gate.confidence) + " of each change (" +
           method_of(t) + "); noise: a change that test cannot tell from chance\n";
    if (t.gate.threshold && (c.base.runs.size() < 2 || c.now.runs.size() < 2))
        out += "# one run a side: the test knows the samples' noise, not how much the program "
               "varies from run to run; a gate on three runs a side (BASE... -- NEW...) measures "
               "that and alarms less often by mistake (docs/ci.md, \"Noise\")\n";
    out += pace_text(t, "# ");
    if (!c.only_base.empty())
        out += "# only in base, not compared: " + joined(c.only_base) + "\n";
    if (!c.only_new.empty())
        out += "# only in new, not compared: " + joined(c.only_new) + "\n";

    analysis::Table table;
    table.headers = {"self base",  "self new",  "self pp",  "interval", "self",
                     "total base", "total new", "total pp", "interval", "total",
                     "status",     "function",  "module"};
    table.left = {false, false, false, false, true, false, false,
                  false, false, true,  true,  true, true};
    size_t noise = 0;
    for (const analysis::FunctionDiff *f : t.rows) {
        auto js = judged(t, *f, true), jt = judged(t, *f, false);
        noise += js && js->verdict == analysis::Verdict::noise;
        table.rows.push_back({
            side_cell(t, c.base, f->base, true),
            side_cell(t, c.now, f->now, true),
            signed_fixed(js ? std::optional(js->points) : std::nullopt),
            interval_text(js),
            verdict_cell(js),
            side_cell(t, c.base, f->base, false),
            side_cell(t, c.now, f->now, false),
            signed_fixed(jt ? std::optional(jt->points) : std::nullopt),
            interval_text(jt),
            verdict_cell(jt),
            f->status(),
            f->name,
            module_cell(*f),
        });
    }
    out += table.render();

    size_t added = 0, gone = 0;
    for (const auto &f : c.functions) {
        added += !f.base.present;
        gone += !f.now.present;
    }
    out += "# " + std::to_string(c.functions.size()) + " functions, " +
           std::to_string(t.rows.size()) + " shown" +
           (t.rows.size() < c.functions.size() ? " (--top 0 for all)" : "") + "; " +
           std::to_string(added) + " new, " + std::to_string(gone) + " gone; " +
           std::to_string(noise) + " of the shown self changes are noise\n";
    if (t.gate.threshold)
        out += "# --fail-above " + analysis::fixed(*t.gate.threshold, 2) + ": " +
               std::to_string(t.grown.size()) +
               (t.grown.size() == 1 ? " function's" : " functions'") + " self " +
               (t.gate.metric == analysis::Metric::share ? "share" : "cost") +
               " grew by more, beyond noise\n";
    return out;
}

namespace {

Json json_numbers(const std::vector<std::optional<double>> &v) {
    Json a = Json::array();
    for (const auto &x : v)
        a.push_back(x && std::isfinite(*x) ? Json(*x) : Json(nullptr));
    return a;
}

Json json_files(const analysis::SideInfo &s) {
    Json a = Json::array();
    for (const auto &r : s.runs)
        a.push_back(r.file);
    return a;
}

Json json_side(const analysis::SideInfo &s) {
    std::vector<std::optional<double>> rates;
    for (uint64_t v : s.totals)
        rates.push_back(s.seconds && *s.seconds > 0 ? std::optional(double(v) / *s.seconds)
                                                    : std::nullopt);
    Json j = {{"file", s.file},       {"runs", json_files(s)},
              {"samples", s.samples}, {"seconds", s.seconds ? Json(*s.seconds) : Json(nullptr)},
              {"totals", s.totals},   {"totals_per_second", json_numbers(rates)}};
    return j;
}

// One function's cost on one side: values, shares of the side's totals
// and self values per second, one per common event.
Json json_cost(const analysis::Comparison &c, const analysis::SideInfo &side,
               const analysis::SideCost &cost) {
    std::vector<std::optional<double>> self_share, total_share, self_rate;
    for (size_t e = 0; e < c.events.size(); ++e) {
        self_share.push_back(c.share(side, cost.self, e));
        total_share.push_back(c.share(side, cost.total, e));
        self_rate.push_back(c.per_second(side, cost.self[e]));
    }
    return {{"present", cost.present},
            {"self_samples", cost.self_samples},
            {"total_samples", cost.total_samples},
            {"self", cost.self},
            {"total", cost.total},
            {"self_share", json_numbers(self_share)},
            {"total_share", json_numbers(total_share)},
            {"self_per_second", json_numbers(self_rate)}};
}

Json json_judgement(const std::optional<analysis::Judgement> &j) {
    if (!j)
        return nullptr;
    auto num = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
    return {{"points", num(j->points)},
            {"low", num(j->low)},
            {"high", num(j->high)},
            {"p_value", num(j->p_value)},
            {"verdict", analysis::verdict_name(j->verdict)}};
}

Json json_function(const TableInput &t, const analysis::FunctionDiff &f) {
    const analysis::Comparison &c = t.c;
    std::vector<std::optional<double>> self_points, total_points;
    Json self_change = Json::array(), total_change = Json::array();
    for (size_t e = 0; e < c.events.size(); ++e) {
        self_points.push_back(c.points(f, e, true));
        total_points.push_back(c.points(f, e, false));
        self_change.push_back(json_judgement(analysis::judge(c, f, e, true, t.gate)));
        total_change.push_back(json_judgement(analysis::judge(c, f, e, false, t.gate)));
    }
    std::string status = f.status();
    return {{"function", f.name},
            {"module", f.module},
            {"status", status.empty() ? "both" : status},
            {"base", json_cost(c, c.base, f.base)},
            {"new", json_cost(c, c.now, f.now)},
            {"self_points", json_numbers(self_points)},
            {"total_points", json_numbers(total_points)},
            {"self_change", self_change},
            {"total_change", total_change}};
}

} // namespace

std::string render_json(const TableInput &t) {
    const analysis::Comparison &c = t.c;
    Json doc;
    doc["format"] = "cpcprof-diff";
    doc["version"] = 2;
    doc["base"] = json_side(c.base);
    doc["new"] = json_side(c.now);
    doc["events"] = c.events;
    doc["events_only_in_base"] = c.only_base;
    doc["events_only_in_new"] = c.only_new;
    doc["event"] = c.events[t.event];
    doc["metric"] = t.gate.metric == analysis::Metric::share ? "share" : "time";
    doc["confidence"] = t.gate.confidence;
    doc["test"] = method_of(t);
    doc["function_count"] = c.functions.size();
    Json rows = Json::array();
    for (const analysis::FunctionDiff *f : t.rows)
        rows.push_back(json_function(t, *f));
    doc["functions"] = rows;
    doc["fail_above"] = t.gate.threshold ? Json(*t.gate.threshold) : Json(nullptr);
    Json grown = Json::array();
    for (const analysis::Regression &r : t.grown) {
        Json g = {{"function", r.function->name},
                  {"module", r.function->module},
                  {"self_points", r.judgement.points}};
        const Json j = json_judgement(r.judgement);
        for (const char *k : {"low", "high", "p_value"})
            g[k] = j[k];
        grown.push_back(g);
    }
    doc["regressions"] = grown;
    return analysis::json_document(doc, {"functions"});
}

std::string regression_summary(const TableInput &t, size_t lines) {
    const analysis::Comparison &c = t.c;
    size_t e = t.event;
    std::string out = "cpcprof diff: regression: " + std::to_string(t.grown.size()) +
                      (t.grown.size() == 1 ? " function's" : " functions'") + " self " +
                      (t.gate.metric == analysis::Metric::share ? "share" : "cost") + " of " +
                      c.events[e] + " grew by more than " + analysis::fixed(*t.gate.threshold, 2) +
                      " points, beyond noise (" + c.base.file + " -> " + c.now.file + "; " +
                      confidence_text(t.gate.confidence) + ", " + method_of(t) + "):\n";
    analysis::Table table;
    table.headers = {"self pp", "interval", "base", "new", "function", "module"};
    table.left = {false, false, false, false, true, true};
    for (size_t i = 0; i < t.grown.size() && i < lines; ++i) {
        const analysis::FunctionDiff &f = *t.grown[i].function;
        table.rows.push_back({signed_fixed(t.grown[i].judgement.points),
                              interval_text(t.grown[i].judgement),
                              side_cell(t, c.base, f.base, true), side_cell(t, c.now, f.now, true),
                              f.name + (f.base.present ? "" : " (new)"), module_cell(f)});
    }
    out += table.render("  ");
    if (t.grown.size() > lines)
        out += "  ... and " + std::to_string(t.grown.size() - lines) +
               " more (cpcprof diff --format json lists them all)\n";
    out += pace_text(t, "cpcprof diff: note: ");
    return out;
}

} // namespace cpcprof::diff
