// SPDX-License-Identifier: MIT
// Running cpcprof under resource limits and measuring what it used, for
// the tests of deep and large profiles: the limits are set with
// setrlimit in the child before exec (a stack of 1 MiB, an address space
// of N MiB), and the CPU time and peak RSS come from wait4's rusage of
// that child alone, so a loaded machine does not change the figures much.
#pragma once

#include "tests/record/record_harness.h" // TempDir

#include <string>
#include <vector>

namespace cpcprof::test {

struct Limits {
    size_t stack_kib = 0;  // RLIMIT_STACK; 0 = unchanged
    size_t memory_mib = 0; // RLIMIT_AS; 0 = unchanged
    int timeout_s = 120;   // killed (SIGKILL) after this much wall time
};

struct LimitedRun {
    int status = -1;  // the exit code, or 128 + signal
    std::string out;  // stdout
    std::string err;  // stderr
    double cpu_s = 0; // user + system CPU time of the child
    long max_rss_kib = 0;
};

// Runs cpcprof ARGS in dir with the limits.
LimitedRun run_limited(const TempDir &dir, const std::vector<std::string> &args,
                       const Limits &limits);

} // namespace cpcprof::test
