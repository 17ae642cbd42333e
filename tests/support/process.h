// SPDX-License-Identifier: MIT
// Running programs from a test: in a test's directory with their output
// in files (run_program), with their output captured through pipes and an
// optional SIGINT (run_capturing), or just for their exit status
// (run_quiet).  Processes started beside a test to be attached to are in
// spawned.h.
#pragma once

#include "tests/support/temp_dir.h"

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace cpcprof::test {

struct RunResult {
    int status = -1; // as a shell gives it: the exit code, or 128 + signal
    bool timed_out = false;
    std::string out; // stdout
    std::string err; // stderr
};

// How start_program starts a program.
struct ProgramOptions {
    unsigned long nofile = 0;           // RLIMIT_NOFILE (soft and hard); 0: as is
    const char *tmpdir = nullptr;       // TMPDIR
    std::vector<std::string> env{};     // NAME=VALUE added
    bool own_group = false;             // in a process group of its own (killed whole on a timeout)
    std::string out = "program.stdout"; // files of the directory for stdout and stderr
    std::string err = "program.stderr";
};

// Starts argv (argv[0] a path) in dir: stdin /dev/null, stdout and stderr
// into files of dir, no other descriptor open, no LD_PRELOAD.  Its pid.
pid_t start_program(const TempDir &dir, const std::vector<std::string> &argv,
                    const ProgramOptions &o = {});
// Waits for a started program and reads its output files; with timeout_s
// > 0 it (or its group, with own_group) is killed after that many seconds
// and timed_out set.
RunResult wait_program(const TempDir &dir, pid_t pid, const ProgramOptions &o = {},
                       int timeout_s = 0);
// start_program, then wait_program without a timeout.
RunResult run_program(const TempDir &dir, const std::vector<std::string> &argv,
                      const ProgramOptions &o = {});

// Runs argv[0] (found in PATH) with argv, output discarded; its exit
// status, or -1 if it could not be run or was killed.
int run_quiet(const std::vector<std::string> &argv);

struct Captured {
    int status = -1; // exit code, or 128 + signal
    std::string out, err;
    double seconds = 0; // wall time from the start to its exit
    double cpu = 0;     // its user + system time
};
struct CaptureOptions {
    uid_t uid = 0;           // non-zero: runs as this uid and gid, without groups
    double sigint_after = 0; // > 0: SIGINT after so many seconds
    // Returns once it has exited and its pipes are quiet, even when a
    // process it started still holds them; otherwise at their end.
    bool until_exit = false;
    // Called every 20 ms while it runs, with its standard output so far.
    std::function<void(const std::string &out)> watch = nullptr;
};
// Runs argv (argv[0] a path), stdout and stderr captured through pipes.
Captured run_capturing(const std::vector<std::string> &argv, const CaptureOptions &o = {});

// Seconds on CLOCK_MONOTONIC.
double monotonic_s();

} // namespace cpcprof::test
