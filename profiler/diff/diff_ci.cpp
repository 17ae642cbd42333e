// SPDX-License-Identifier: MIT
// The CI systems' formats of `cpcprof diff`: JUnit XML (GitLab, Jenkins,
// Buildkite show it as test results) and a Markdown summary (GitHub's job
// summary).  Names are escaped for their format; a profile's names are
// bytes, so invalid UTF-8 becomes U+FFFD (utf8_text.h).
#include "profiler/analysis/table_format.h"
#include "profiler/analysis/utf8_text.h"
#include "profiler/diff/diff_output.h"

#include <algorithm>
#include <set>

namespace cpcprof::diff {

namespace {

std::string xml(std::string_view s) {
    std::string out;
    analysis::append_xml(out, s);
    return out;
}

std::string who(const analysis::FunctionDiff &f) {
    return f.name + " (" + (f.module.empty() ? "?" : f.module) + ")";
}

// What a regression or a change says in one line.
std::string change_line(const TableInput &t, const analysis::Judgement &j) {
    std::string what = t.gate.metric == analysis::Metric::share ? "self share" : "self cost";
    return what + " of " + t.c.events[t.event] + " changed by " + signed_fixed(j.points) +
           " points, " + confidence_text(t.gate.confidence) + " " + interval_text(j) +
           ", p = " + analysis::fixed(j.p_value, 4) + " (" + analysis::method_name(j.method) + ")";
}

// The functions a report names: the table's rows, then every regression
// the table cut.
std::vector<const analysis::FunctionDiff *> reported(const TableInput &t) {
    std::vector<const analysis::FunctionDiff *> out = t.rows;
    std::set<const analysis::FunctionDiff *> seen(out.begin(), out.end());
    for (const analysis::Regression &r : t.grown)
        if (seen.insert(r.function).second)
            out.push_back(r.function);
    return out;
}

std::string markdown_cell(std::string_view s) {
    std::string out;
    for (char ch : analysis::valid_utf8(s)) {
        if (ch == '|' || ch == '\\' || ch == '`' || ch == '*' || ch == '_' || ch == '<' ||
            ch == '>' || ch == '[' || ch == ']')
            out += '\\';
        out += (ch == '\n' || ch == '\r') ? ' ' : ch;
    }
    return out;
}

} // namespace

std::string render_junit(const TableInput &t) {
    const auto functions = reported(t);
    const std::string suite = "cpcprof diff " + t.c.events[t.event];
    std::string cases;
    size_t failures = 0;
    for (const analysis::FunctionDiff *f : functions) {
        auto j = analysis::judge(t.c, *f, t.event, true, t.gate);
        cases += "    <testcase classname=\"" + xml(suite) + "\" name=\"" + xml(who(*f)) + "\"";
        if (!j) {
            cases += "/>\n";
            continue;
        }
        if (j->verdict != analysis::Verdict::regression) {
            cases += ">\n      <system-out>" +
                     xml(change_line(t, *j) + "; " + analysis::verdict_name(j->verdict)) +
                     "</system-out>\n    </testcase>\n";
            continue;
        }
        ++failures;
        std::string message = "grew by more than " + analysis::fixed(*t.gate.threshold, 2) +
                              " points, beyond noise: " + change_line(t, *j);
        cases += ">\n      <failure type=\"regression\" message=\"" + xml(message) + "\">" +
                 xml(t.c.base.file + " -> " + t.c.now.file + ": " + message) +
                 "</failure>\n    </testcase>\n";
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"" +
           xml(suite) + "\" tests=\"" + std::to_string(functions.size()) + "\" failures=\"" +
           std::to_string(failures) + "\" errors=\"0\">\n" + cases +
           "  </testsuite>\n</testsuites>\n";
}

std::string render_markdown(const TableInput &t) {
    const analysis::Comparison &c = t.c;
    std::string out = "### cpcprof diff: " + markdown_cell(c.events[t.event]) + "\n\n";
    if (t.gate.threshold) {
        out += t.grown.empty() ? "**No regression**: no function's self " : "**Regression**: ";
        if (t.grown.empty())
            out += std::string(t.gate.metric == analysis::Metric::share ? "share" : "cost") +
                   " grew by more than " + analysis::fixed(*t.gate.threshold, 2) +
                   " points beyond noise.\n\n";
        else
            out += std::to_string(t.grown.size()) +
                   (t.grown.size() == 1 ? " function grew" : " functions grew") + " by more than " +
                   analysis::fixed(*t.gate.threshold, 2) + " points beyond noise.\n\n";
    }
    out += "Base: " + std::to_string(c.base.runs.size()) +
           (c.base.runs.size() == 1 ? " run, " : " runs, ") + std::to_string(c.base.samples) +
           " samples; new: " + std::to_string(c.now.runs.size()) +
           (c.now.runs.size() == 1 ? " run, " : " runs, ") + std::to_string(c.now.samples) +
           " samples. Changes in percentage points with " + confidence_text(t.gate.confidence) +
           " (" + analysis::method_name(analysis::method_for(c, t.gate.metric)) +
           "); *noise* is a change the test cannot tell from chance.\n\n";
    out += "| self pp | interval | verdict | function | module |\n| ---: | ---: | --- | --- | --- "
           "|\n";
    for (const analysis::FunctionDiff *f : reported(t)) {
        auto j = analysis::judge(c, *f, t.event, true, t.gate);
        std::string verdict = j ? analysis::verdict_name(j->verdict) : "-";
        if (j && j->verdict == analysis::Verdict::regression)
            verdict = "**regression**";
        else if (j && j->verdict == analysis::Verdict::noise)
            verdict = "*noise*";
        out += "| " + signed_fixed(j ? std::optional(j->points) : std::nullopt) + " | " +
               interval_text(j) + " | " + verdict + " | " + markdown_cell(f->name) + " | " +
               markdown_cell(f->module.empty() ? "?" : f->module) + " |\n";
    }
    return out;
}

} // namespace cpcprof::diff
