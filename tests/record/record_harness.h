// Running `cpcprof record` from a test and reading what it wrote: a fresh
// temporary directory per test, the command's exit status and output, the
// summary line, and the profile through storage::Reader.
#pragma once

#include <storage/profile.h>

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::test {

// A directory made for one test and removed with everything in it (kept,
// and its path printed, when CPCPROF_TEST_KEEP is set).
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

struct RunResult {
    int status = -1; // as a shell gives it: the exit code, or 128 + signal
    bool timed_out = false;
    std::string out; // stdout: the target's output
    std::string err; // stderr: cpcprof's messages (and the target's)
};

// Starts `cpcprof ARGS` (ARGS after the program name) in dir, in a process
// group of its own, stdout and stderr into files of dir, no other
// descriptor open.  Returns its pid.
pid_t start_cpcprof(const TempDir &dir, const std::vector<std::string> &args);
// Waits for a started cpcprof; after timeout_s its process group is killed
// and timed_out set.
RunResult wait_cpcprof(const TempDir &dir, pid_t pid, int timeout_s = 30);
RunResult run_cpcprof(const TempDir &dir, const std::vector<std::string> &args,
                      int timeout_s = 30);

// How run_program starts a program.
struct ProgramOptions {
    unsigned long nofile = 0;     // RLIMIT_NOFILE (soft and hard); 0: as is
    const char *tmpdir = nullptr; // TMPDIR
    std::vector<std::string> env; // NAME=VALUE added
};
// Runs argv (argv[0] a path) in dir without the profiler (no LD_PRELOAD),
// stdout and stderr into files of dir, no other descriptor open; waits.
RunResult run_program(const TempDir &dir, const std::vector<std::string> &argv,
                      const ProgramOptions &o = {});

// The figures of cpcprof's summary line.
struct Summary {
    double seconds = 0;
    unsigned processes = 0, threads = 0;
    uint64_t taken = 0, stored = 0, dropped = 0;
};
std::optional<Summary> parse_summary(const std::string &err);

// Lines of text that start with prefix, prefix removed.
std::vector<std::string> lines_with(const std::string &text, const std::string &prefix);
size_t count_lines_containing(const std::string &text, const std::string &needle);
std::string read_file(const std::string &path);

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

// PRAGMA integrity_check through SQLite itself: "ok" or its complaints.
std::string integrity_check(const std::string &path);

} // namespace cpcprof::test
