// Running `cpcprof record` from a test and reading what it wrote: the
// command's exit status and output, the summary line, and the profile
// through storage::Reader.  Temporary directories, running programs and
// reading files are tests/support's.
#pragma once

#include "tests/support/files.h"     // tests/support: read_file, lines_with, ...
#include "tests/support/integrity.h" // tests/support: integrity_check
#include "tests/support/process.h"   // tests/support: TempDir, RunResult, run_program

#include "storage/profile.h"

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::test {

// Starts `cpcprof ARGS` (ARGS after the program name) in dir, in a process
// group of its own, stdout and stderr into the files "stdout" and "stderr"
// of dir, no other descriptor open (tests/support: start_program).
// Returns its pid.
pid_t start_cpcprof(const TempDir &dir, const std::vector<std::string> &args);
// Waits for a started cpcprof; after timeout_s its process group is killed
// and timed_out set.
RunResult wait_cpcprof(const TempDir &dir, pid_t pid, int timeout_s = 30);
RunResult run_cpcprof(const TempDir &dir, const std::vector<std::string> &args, int timeout_s = 30);

// The figures of cpcprof's summary line.
struct Summary {
    double seconds = 0;
    unsigned processes = 0, threads = 0;
    uint64_t taken = 0, stored = 0, dropped = 0;
};
std::optional<Summary> parse_summary(const std::string &err);

// A sample copied out of Reader::for_each_sample.
struct SampleCopy {
    int pid = 0, tid = 0;
    int64_t time_ns = 0;
    bool complete = false;
    std::vector<uint64_t> frames;
    storage::StoredSample view() const; // spans into this copy
};

struct Profile {
    std::unique_ptr<storage::Reader> reader;
    std::vector<SampleCopy> samples;
    std::string error; // why it could not be opened or read
    explicit operator bool() const { return reader != nullptr && error.empty(); }
};
Profile load_profile(const std::string &path);

} // namespace cpcprof::test
