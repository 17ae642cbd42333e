// SPDX-License-Identifier: MIT
// What the cputrack tests share: running cputrack, and its lines parsed
// and rendered again with the illumos format strings written out here (so
// that the columns are checked exactly), or masked (times, counts and
// process IDs) to be compared with expected text.
#pragma once

#include "tests/support/files.h"
#include "tests/support/libcpc_checks.h" // libcpc_refusal, can_count_system
#include "tests/support/process.h"
#include "tests/support/ptrace_check.h"
#include "tests/support/spawned.h"
#include "tests/support/temp_dir.h"

#include "profiler/tools/caps.h"
#include "profiler/tools/cputrack_options.h"

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace cputracktest {

using namespace cpcprof::test;

using Result = Captured;

// Runs cputrack with args; returns when it has exited (a target it let go
// may still hold the pipes), sending SIGINT after sigint_after seconds.
Result run(std::vector<std::string> args, double sigint_after = 0);

// Seconds on the monotonic clock.
double now_s();

// ---- the lines ----

struct Cols {
    bool pid = false; // -f
    bool tsc = false; // -t
};

// One output line: "%7.3f " ["%6d "] "%3d %10s " then "%9lld " per value
// (tsc first with -t), or "%9s " per blank column, then " # text" or not.
struct Line {
    double time = 0;
    long pid = -1;
    long lwp = -1;
    std::string label;
    std::vector<long long> values;
    size_t blanks = 0; // fork and exec notes: empty columns
    std::string comment;
    bool has_comment = false;
};

std::string render(const Line &l, Cols c);
// Takes the fields of text; it must render back to exactly the same text.
Line parse(const std::string &text, Cols c);
// The header line of these counters (and the set's spec, with several sets).
std::string header(const std::vector<std::string> &counters, Cols c, const std::string &spec = "");
// The lines after the headers, parsed.
std::vector<Line> body(const std::string &out, size_t headers, Cols c);
// The line with times and counts masked and process and thread IDs named:
// "[pid] lwp label n n # comment" (blank columns are "-").
std::string masked(const Line &l, Cols c, const std::map<long, std::string> &names);
std::string masked_text(const std::vector<Line> &lines, Cols c,
                        const std::map<long, std::string> &names);

// ---- the machine ----

// "cputrack: WHY" and the usage text.
std::string usage_error(const std::string &why);
// A pid that no process has: a child that has been reaped.
pid_t dead_pid();

} // namespace cputracktest
