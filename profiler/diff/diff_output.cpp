// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_output.h"

#include "profiler/analysis/table_format.h" // Table, percent, json_string, json_number

#include <cmath>
#include <cstdio>

namespace cpcprof::diff {

using analysis::json_number;
using analysis::json_string;
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
    std::string line = std::string("# ") + label + s.file + ": " + std::to_string(s.samples) +
                       " samples, " + seconds_text(s.seconds);
    return line + ", " + std::to_string(s.totals[e]) + " in total\n";
}

std::string module_cell(const analysis::FunctionDiff &f) {
    return f.module.empty() ? "?" : f.module;
}

} // namespace

std::string render_text(const TableInput &t) {
    const analysis::Comparison &c = t.c;
    size_t e = t.event;
    std::string out = side_line("base: ", c.base, e) + side_line("new:  ", c.now, e);
    out += "# event: " + c.events[e] +
           "; shares are of each profile's own total, changes in percentage points (pp)\n";
    if (!c.only_base.empty())
        out += "# only in base, not compared: " + joined(c.only_base) + "\n";
    if (!c.only_new.empty())
        out += "# only in new, not compared: " + joined(c.only_new) + "\n";

    analysis::Table table;
    table.headers = {"self base", "self new", "self pp",  "total base", "total new",
                     "total pp",  "status",   "function", "module"};
    table.left = {false, false, false, false, false, false, true, true, true};
    for (const analysis::FunctionDiff *f : t.rows) {
        table.rows.push_back({
            percent(c.share(c.base, f->base.self, e)),
            percent(c.share(c.now, f->now.self, e)),
            signed_fixed(c.points(*f, e, true)),
            percent(c.share(c.base, f->base.total, e)),
            percent(c.share(c.now, f->now.total, e)),
            signed_fixed(c.points(*f, e, false)),
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
           std::to_string(added) + " new, " + std::to_string(gone) + " gone\n";
    if (t.fail_above)
        out += "# --fail-above " + analysis::fixed(*t.fail_above, 2) + ": " +
               std::to_string(t.grown.size()) +
               (t.grown.size() == 1 ? " function's" : " functions'") + " self share grew by more\n";
    return out;
}

namespace {

std::string json_numbers(const std::vector<std::optional<double>> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + json_number(v[i]);
    return s + "]";
}

std::string json_counts(const std::vector<uint64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string json_words(const std::vector<std::string> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + json_string(v[i]);
    return s + "]";
}

std::string json_side(const analysis::SideInfo &s) {
    std::vector<std::optional<double>> rates;
    for (uint64_t v : s.totals)
        rates.push_back(s.seconds && *s.seconds > 0 ? std::optional(double(v) / *s.seconds)
                                                    : std::nullopt);
    return "{\"file\": " + json_string(s.file) + ", \"samples\": " + std::to_string(s.samples) +
           ", \"seconds\": " + json_number(s.seconds) + ", \"totals\": " + json_counts(s.totals) +
           ", \"totals_per_second\": " + json_numbers(rates) + "}";
}

// One function's cost on one side: values, shares of the side's totals
// and self values per second, one per common event.
std::string json_cost(const analysis::Comparison &c, const analysis::SideInfo &side,
                      const analysis::SideCost &cost) {
    std::vector<std::optional<double>> self_share, total_share, self_rate;
    for (size_t e = 0; e < c.events.size(); ++e) {
        self_share.push_back(c.share(side, cost.self, e));
        total_share.push_back(c.share(side, cost.total, e));
        self_rate.push_back(c.per_second(side, cost.self[e]));
    }
    return "{\"present\": " + std::string(cost.present ? "true" : "false") +
           ", \"self_samples\": " + std::to_string(cost.self_samples) +
           ", \"total_samples\": " + std::to_string(cost.total_samples) +
           ", \"self\": " + json_counts(cost.self) + ", \"total\": " + json_counts(cost.total) +
           ", \"self_share\": " + json_numbers(self_share) +
           ", \"total_share\": " + json_numbers(total_share) +
           ", \"self_per_second\": " + json_numbers(self_rate) + "}";
}

std::string json_function(const analysis::Comparison &c, const analysis::FunctionDiff &f) {
    std::vector<std::optional<double>> self_points, total_points;
    for (size_t e = 0; e < c.events.size(); ++e) {
        self_points.push_back(c.points(f, e, true));
        total_points.push_back(c.points(f, e, false));
    }
    std::string status = f.status();
    return "{\"function\": " + json_string(f.name) + ", \"module\": " + json_string(f.module) +
           ", \"status\": " + json_string(status.empty() ? "both" : status) +
           ",\n     \"base\": " + json_cost(c, c.base, f.base) +
           ",\n     \"new\": " + json_cost(c, c.now, f.now) +
           ",\n     \"self_points\": " + json_numbers(self_points) +
           ", \"total_points\": " + json_numbers(total_points) + "}";
}

} // namespace

std::string render_json(const TableInput &t) {
    const analysis::Comparison &c = t.c;
    std::string out = "{\n  \"format\": \"cpcprof-diff\",\n  \"version\": 1,\n";
    out += "  \"base\": " + json_side(c.base) + ",\n";
    out += "  \"new\": " + json_side(c.now) + ",\n";
    out += "  \"events\": " + json_words(c.events) + ",\n";
    out += "  \"events_only_in_base\": " + json_words(c.only_base) + ",\n";
    out += "  \"events_only_in_new\": " + json_words(c.only_new) + ",\n";
    out += "  \"event\": " + json_string(c.events[t.event]) + ",\n";
    out += "  \"function_count\": " + std::to_string(c.functions.size()) + ",\n";
    out += "  \"functions\": [";
    for (size_t i = 0; i < t.rows.size(); ++i)
        out += std::string(i ? "," : "") + "\n    " + json_function(c, *t.rows[i]);
    out += t.rows.empty() ? "],\n" : "\n  ],\n";
    out += "  \"fail_above\": " + json_number(t.fail_above) + ",\n";
    out += "  \"regressions\": [";
    for (size_t i = 0; i < t.grown.size(); ++i) {
        const analysis::FunctionDiff &f = *t.grown[i];
        out += std::string(i ? ", " : "") + "{\"function\": " + json_string(f.name) +
               ", \"module\": " + json_string(f.module) +
               ", \"self_points\": " + json_number(c.points(f, t.event, true)) + "}";
    }
    return out + "]\n}\n";
}

std::string regression_summary(const TableInput &t, size_t lines) {
    const analysis::Comparison &c = t.c;
    size_t e = t.event;
    std::string out = "cpcprof diff: regression: " + std::to_string(t.grown.size()) +
                      (t.grown.size() == 1 ? " function's" : " functions'") + " self share of " +
                      c.events[e] + " grew by more than " + analysis::fixed(*t.fail_above, 2) +
                      " points (" + c.base.file + " -> " + c.now.file + "):\n";
    analysis::Table table;
    table.headers = {"self pp", "base", "new", "function", "module"};
    table.left = {false, false, false, true, true};
    for (size_t i = 0; i < t.grown.size() && i < lines; ++i) {
        const analysis::FunctionDiff &f = *t.grown[i];
        table.rows.push_back({signed_fixed(c.points(f, e, true)),
                              percent(c.share(c.base, f.base.self, e)),
                              percent(c.share(c.now, f.now.self, e)),
                              f.name + (f.base.present ? "" : " (new)"), module_cell(f)});
    }
    out += table.render("  ");
    if (t.grown.size() > lines)
        out += "  ... and " + std::to_string(t.grown.size() - lines) +
               " more (cpcprof diff --format json lists them all)\n";
    return out;
}

} // namespace cpcprof::diff
