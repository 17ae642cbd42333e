// SPDX-License-Identifier: MIT
#include "tests/tools/cputrack_harness.h"

#include <gtest/gtest.h>

#include <libcpc.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace cputracktest {

Result run(std::vector<std::string> args, double sigint_after) {
    args.insert(args.begin(), CPUTRACK_PATH);
    return run_capturing(args, {.sigint_after = sigint_after, .until_exit = true});
}

double now_s() {
    return monotonic_s();
}

std::string render(const Line &l, Cols c) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%7.3f ", l.time);
    std::string s = buf;
    if (c.pid) {
        std::snprintf(buf, sizeof buf, "%6ld ", l.pid);
        s += buf;
    }
    std::snprintf(buf, sizeof buf, "%3ld %10s ", l.lwp, l.label.c_str());
    s += buf;
    for (long long v : l.values) {
        std::snprintf(buf, sizeof buf, "%9lld ", v);
        s += buf;
    }
    for (size_t i = 0; i < l.blanks; ++i)
        s += std::string(9, ' ') + " ";
    if (l.has_comment)
        s += " # " + l.comment;
    return s;
}

// Takes the fields of text; it must render back to exactly the same text.
Line parse(const std::string &text, Cols c) {
    Line l;
    std::string body = text;
    size_t hash = text.find(" # ");
    if (hash != std::string::npos) {
        l.has_comment = true;
        l.comment = text.substr(hash + 3);
        body = text.substr(0, hash);
    }
    std::istringstream in(body);
    in >> l.time;
    if (c.pid)
        in >> l.pid;
    in >> l.lwp >> l.label;
    std::string rest;
    std::getline(in, rest);
    std::istringstream nums(rest);
    for (long long v; nums >> v;)
        l.values.push_back(v);
    if (l.values.empty() && rest.size() > 1)
        l.blanks = (rest.size() - 1) / 10; // " " after the label, then "%9s " each
    EXPECT_EQ(render(l, c), text) << "malformed line";
    return l;
}

std::string header(const std::vector<std::string> &counters, Cols c, const std::string &spec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%7s ", "time");
    std::string h = buf;
    if (c.pid) {
        std::snprintf(buf, sizeof buf, "%6s ", "pid");
        h += buf;
    }
    std::snprintf(buf, sizeof buf, "%3s %10s ", "lwp", "event");
    h += buf;
    std::vector<std::string> cols = counters;
    if (c.tsc)
        cols.insert(cols.begin(), "tsc");
    for (const std::string &col : cols) {
        std::snprintf(buf, sizeof buf, "%9s ", col.c_str());
        h += buf;
    }
    return spec.empty() ? h : h + " # " + spec;
}

// The lines after the headers, parsed.
std::vector<Line> body(const std::string &out, size_t headers, Cols c) {
    std::vector<std::string> ls = split_lines(out);
    std::vector<Line> lines;
    for (size_t i = headers; i < ls.size(); ++i)
        lines.push_back(parse(ls[i], c));
    return lines;
}

// The line with times and counts masked and process and thread IDs named:
// "[pid] lwp label n n # comment" (blank columns are "-").
std::string masked(const Line &l, Cols c, const std::map<long, std::string> &names) {
    auto name = [&](long id) {
        auto it = names.find(id);
        return it == names.end() ? std::string("?") + std::to_string(id) : it->second;
    };
    std::string s;
    if (c.pid)
        s += name(l.pid) + " ";
    s += name(l.lwp) + " " + l.label;
    for (size_t i = 0; i < l.values.size(); ++i)
        s += " n";
    for (size_t i = 0; i < l.blanks; ++i)
        s += " -";
    if (l.has_comment) {
        std::string comment = l.comment;
        for (const auto &[id, n] : names)
            if (comment == std::to_string(id))
                comment = n;
        s += " # " + comment;
    }
    return s;
}

std::string masked_text(const std::vector<Line> &lines, Cols c,
                        const std::map<long, std::string> &names) {
    std::string s;
    for (const Line &l : lines)
        s += masked(l, c, names) + "\n";
    return s;
}

std::string usage_error(const std::string &why) {
    return "cputrack: " + why + "\n" + cpcprof::tools::kCputrackUsage;
}

// A pid that no process has: a child that has been reaped.
pid_t dead_pid() {
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, nullptr, 0);
    return pid;
}

} // namespace cputracktest
