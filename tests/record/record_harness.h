// SPDX-License-Identifier: MIT
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
#include <map>
#include <memory>
#include <optional>
#include <set>
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
// run_cpcprof as a container runs it: cpcprof and everything it starts
// under a seccomp filter that answers EPERM to perf_event_open
// (tests/support/refuse_perf), with env ("NAME=VALUE") added.  Where
// REFUSE_PERF_EXE is defined (test_record).  filter: refuse_perf's mode
// ("seccomp-kill-readv": a filter that also kills for process_vm_readv).
RunResult run_cpcprof_in_container(const TempDir &dir, const std::vector<std::string> &args,
                                   const std::vector<std::string> &env = {},
                                   const char *filter = "seccomp");

// The figures of cpcprof's summary line.
struct Summary {
    double seconds = 0;
    unsigned processes = 0, threads = 0;
    uint64_t taken = 0, stored = 0, dropped = 0;
};
std::optional<Summary> parse_summary(const std::string &err);

// What the workload target (targets/workload.c) printed about its own CPU
// time, by function: the seconds of each phase ("share FUNC SECONDS") and
// of its setup ("setup FUNC SECONDS"), the truth a profile is held to.
std::map<std::string, double> workload_seconds(const std::string &out);

// A target's reference count of the clock periods of a piece of work
// ("clock NAME PERIODS TAKEN", targets/target_util.h): the periods of
// cpu-clock (1 ms) the kernel counted in it and the overflows it took, as
// the sampler would, user mode only.  Several lines of one name (the
// images of an exec, a work done twice) add up.
struct ClockReference {
    uint64_t periods = 0, taken = 0;
    // The fewest samples a sampler of the same clock and period takes in
    // that work but for one run in a million: the binomial lower bound of
    // the periods at the lowest rate that TAKEN allows (tests/support:
    // binomial.h).
    uint64_t fewest_samples() const;
    // The most: a sample per period, and one more at each end, where a
    // period began before the work or ends after it.
    uint64_t most_samples() const { return periods + 2; }
    // "k samples, where the reference counted ... allowing [fewest, most]"
    std::string story(uint64_t samples) const;
};
// The reference called name in text; nullopt when there is none, or the
// kernel refused the target its event.
std::optional<ClockReference> clock_reference(const std::string &text, const std::string &name);

// A sample copied out of Reader::for_each_sample.
struct SampleCopy {
    int pid = 0, tid = 0;
    int64_t time_ns = 0;
    bool complete = false;
    std::vector<uint64_t> frames;
    int cpu = -1;
    storage::StoredSample view() const; // spans into this copy
};

struct Profile {
    std::unique_ptr<storage::Reader> reader;
    std::vector<SampleCopy> samples;
    std::string error; // why it could not be opened or read
    explicit operator bool() const { return reader != nullptr && error.empty(); }
};
Profile load_profile(const std::string &path);

// The processors this test may run on (its affinity mask): where there
// are two or more, a recording of two busy threads has samples on two.
int usable_cpus();
// The distinct processors p's samples say they were taken on (-1: not said).
std::set<int> cpus_of(const Profile &p);

// The first process of p whose program's path ends with exe_end; null if
// none.
const storage::ProcessRecord *process_running(const Profile &p, const std::string &exe_end);

// path with its links resolved (as the profiler names files); path itself
// if it cannot be.
std::string real_path(const char *path);

// Whether libcpc's POSIX-timer backend took the profile's samples
// (run.counters), and the samples a process's last stretch may lack there:
// the kernel checks CPU timers only at a tick that finds the thread
// running, and what it had not checked when the thread ended or exec'd is
// never signalled.  Measured beside load on this VM: up to 134 ms of a
// thread's CPU time between checks (docs/libcpc-on-linux.md), so 150 ms
// of periods per process end; 0 on the perf backend.
bool timer_backend(const Profile &p);
uint64_t unseen_tail_samples(const Profile &p, uint64_t period_ns);

} // namespace cpcprof::test
