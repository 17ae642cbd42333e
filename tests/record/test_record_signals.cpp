// SPDX-License-Identifier: MIT
// SIGTRAP, the signal the kernel raises at counter overflow, taken by the
// program in every way real programs take it (targets/trapper.c, and a Go
// program when golang-go is installed): the program's output and exit
// status are those of the run without the profiler, its handler sees only
// its own signals, and the recording says what happened - sampling goes on
// where the agent could keep the signal, and stops, said once with the
// process's pid and name, where the program took it behind its back.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

using namespace cpcprof::test;

namespace {

struct Recorded {
    RunResult bare, run;
    Profile profile;
};

Recorded record(const TempDir &dir, const std::vector<std::string> &argv) {
    Recorded r;
    r.bare = run_program(dir, argv);
    std::vector<std::string> args{"record", "-o", "out.cpcprof", "--"};
    args.insert(args.end(), argv.begin(), argv.end());
    r.run = run_cpcprof(dir, args);
    r.profile = load_profile(dir.file("out.cpcprof"));
    return r;
}

const char kKept[] = "sets its own action for SIGTRAP";
const char kStopped[] = "replaced the handler of SIGTRAP";

// The program's own output and status are those of the bare run.
// The file's notices about pid that contain needle.
size_t notices(const Profile &p, int pid, const std::string &needle) {
    size_t n = 0;
    for (const auto &notice : p.reader->notices())
        n += notice.pid == pid && notice.text.find(needle) != std::string::npos;
    return n;
}

void expect_unharmed(const Recorded &r) {
    EXPECT_EQ(r.bare.status, 0) << r.bare.err;
    EXPECT_EQ(r.run.status, r.bare.status) << r.run.err;
    EXPECT_EQ(r.run.out, r.bare.out) << r.run.err;
    EXPECT_EQ(r.run.err.find("SIGTRAP: trace trap"), std::string::npos) << r.run.err;
    EXPECT_EQ(r.run.out.find("killed"), std::string::npos) << r.run.out;
}

// The target's spins (0.4 s of CPU time, 400 periods at the default rate)
// were sampled: at least as many samples as the kernel's own count of
// their clock periods allows (the reference lines "clock NAME" that the
// target prints).
void expect_spins_sampled(const Recorded &r, size_t samples, const char *name = "spin") {
    auto ref = clock_reference(r.run.err, name);
    ASSERT_TRUE(ref) << "the target counted no clock periods of its own:\n" << r.run.err;
    // Less what the timer backend cannot see at a process's end.
    EXPECT_GE(samples + unseen_tail_samples(r.profile, 1'000'000), ref->fewest_samples())
        << ref->story(samples);
}

// Where the agent kept SIGTRAP: said once, and sampling went on.
void kept_case(const char *mode, size_t own) {
    TempDir dir;
    Recorded r = record(dir, {TRAPPER_EXE, mode});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, std::string("trapper ") + mode + " own " + std::to_string(own) +
                                        " foreign 0")
                  .size(),
              1u)
        << r.run.out;
    EXPECT_EQ(count_lines_containing(r.run.err, kKept), 1u) << r.run.err;
    EXPECT_EQ(count_lines_containing(r.run.err, "sampling stopped"), 0u) << r.run.err;
    ASSERT_TRUE(r.profile) << r.profile.error;
    std::printf("%s: %zu samples\n", mode, r.profile.samples.size());
    expect_spins_sampled(r, r.profile.samples.size());
    ASSERT_EQ(r.profile.reader->processes().size(), 1u);
    EXPECT_EQ(notices(r.profile, r.profile.reader->processes()[0].info.pid, kKept), 1u);
    EXPECT_TRUE(r.profile.reader->accounting_balanced());
}

} // namespace

TEST(RecordSigtrap, DefaultActionSetBeforeSamplingStarted) {
    kept_case("dfl-before", 0);
}

TEST(RecordSigtrap, DefaultActionSetWhileSampling) {
    kept_case("dfl-after", 0);
}

// The program's handler gets its raise(SIGTRAP) and its int3, nothing else.
TEST(RecordSigtrap, OwnHandlerInstalledFirst) {
    kept_case("handler-before", 2);
}

TEST(RecordSigtrap, OwnHandlerInstalledWhileSampling) {
    kept_case("handler-after", 2);
}

// signal(3)'s relatives, which the C library implements without
// sigaction(3); sysv_signal's handler is reset to SIG_DFL when it runs, so
// the rest of the run has the default action.
TEST(RecordSigtrap, SigsetDefaultAction) {
    kept_case("sigset-dfl", 0);
}

TEST(RecordSigtrap, SysvSignalHandlerThenDefault) {
    kept_case("sysv-handler", 1);
}

// Every signal taken with syscall(SYS_rt_sigaction, ...) of libc, which
// the agent sees.
TEST(RecordSigtrap, EverySignalTakenThroughSyscall3) {
    kept_case("syscall-all", 1);
}

// What Go's runtime does without cgo: every signal taken with the system
// call instruction itself.  The agent finds it, puts its handler back and
// stops sampling in the process, which runs on unharmed.
TEST(RecordSigtrap, EverySignalTakenByRawSystemCallStopsSampling) {
    TempDir dir;
    Recorded r = record(dir, {TRAPPER_EXE, "raw-all"});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, "trapper raw-all own 1 foreign 0").size(), 1u) << r.run.out;
    ASSERT_TRUE(r.profile) << r.profile.error;
    ASSERT_EQ(r.profile.reader->processes().size(), 1u);
    const auto &proc = r.profile.reader->processes()[0];
    std::string said =
        "sampling stopped in process " + std::to_string(proc.info.pid) + " (record_trapper)";
    EXPECT_EQ(count_lines_containing(r.run.err, kStopped), 1u) << r.run.err;
    EXPECT_EQ(count_lines_containing(r.run.err, said), 1u) << r.run.err;
    EXPECT_EQ(proc.exit_status, std::optional<int>(0));
    // The file says it too, and `cpcprof report` shows it.
    EXPECT_EQ(notices(r.profile, proc.info.pid, said), 1u);
    RunResult report = run_cpcprof(dir, {"report", "out.cpcprof"});
    EXPECT_EQ(report.status, 0) << report.err;
    EXPECT_EQ(count_lines_containing(report.out,
                                     "# notice: process " + std::to_string(proc.info.pid) + ": "),
              1u)
        << report.out;
    EXPECT_EQ(count_lines_containing(report.out, said), 1u) << report.out;
    // Stopped: 0.4 s of CPU time would have been 400 samples.
    std::printf("raw-all: %zu samples after the takeover\n", r.profile.samples.size());
    EXPECT_LT(r.profile.samples.size(), 100u);
    EXPECT_TRUE(r.profile.reader->accounting_balanced());
}

// SIGTRAP reset to the default action by the system call instruction, and
// CPU work at once: the race docs/profiler.md describes.  Either the agent
// looked first (sampling stopped, the program ran on unharmed) or an
// overflow came first and killed the program; then the recorder says so,
// and the file keeps it, so that the death is not taken for the program's.
TEST(RecordSigtrap, RawDefaultActionRaceIsSaidEitherWay) {
    TempDir dir;
    Recorded r = record(dir, {TRAPPER_EXE, "raw-dfl-now"});
    EXPECT_EQ(r.bare.status, 0) << r.bare.err;
    ASSERT_TRUE(r.profile) << r.profile.error;
    ASSERT_EQ(r.profile.reader->processes().size(), 1u);
    const auto &proc = r.profile.reader->processes()[0];
    const char kKilled[] = "was killed by SIGTRAP, the signal of the counters' overflows";
    if (r.run.status == 0) {
        std::printf("raw-dfl-now: the agent saw the change first\n");
        EXPECT_EQ(r.run.out, r.bare.out);
        EXPECT_EQ(count_lines_containing(r.run.err, kStopped), 1u) << r.run.err;
        EXPECT_EQ(count_lines_containing(r.run.err, kKilled), 0u) << r.run.err;
        EXPECT_EQ(proc.exit_status, std::optional<int>(0));
    } else {
        std::printf("raw-dfl-now: an overflow came first and killed the program\n");
        EXPECT_EQ(r.run.status, 128 + SIGTRAP) << r.run.err;
        EXPECT_EQ(proc.killed_by_signal, std::optional<int>(SIGTRAP));
        std::string said =
            "process " + std::to_string(proc.info.pid) + " (record_trapper) " + kKilled;
        EXPECT_EQ(count_lines_containing(r.run.err, said), 1u) << r.run.err;
        EXPECT_EQ(notices(r.profile, proc.info.pid, kKilled), 1u);
    }
    EXPECT_TRUE(r.profile.reader->accounting_balanced());
}

// An ignored SIGTRAP stays ignored across exec, as it does without the
// profiler: the new image's raise(SIGTRAP) is ignored; both images sampled.
TEST(RecordSigtrap, IgnoredSigtrapStaysIgnoredAcrossExec) {
    TempDir dir;
    Recorded r = record(dir, {TRAPPER_EXE, "ign-exec"});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, "ignored yes").size(), 1u) << r.run.out;
    EXPECT_EQ(lines_with(r.run.out, "trapper ign-report own 0 foreign 0").size(), 1u) << r.run.out;
    ASSERT_TRUE(r.profile) << r.profile.error;
    std::printf("ign-exec: %zu samples\n", r.profile.samples.size());
    expect_spins_sampled(r, r.profile.samples.size()); // 0.2 s of CPU time in each image
    EXPECT_EQ(count_lines_containing(r.run.err, "sampling stopped"), 0u) << r.run.err;
}

// A fork child of a process where sampling stopped is not sampled either,
// and says so; both run unharmed.
TEST(RecordSigtrap, ForkChildOfAStoppedProcess) {
    TempDir dir;
    Recorded r = record(dir, {TRAPPER_EXE, "raw-all-fork"});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, "child exit 0").size(), 1u) << r.run.out;
    ASSERT_TRUE(r.profile) << r.profile.error;
    ASSERT_EQ(r.profile.reader->processes().size(), 2u);
    EXPECT_EQ(count_lines_containing(r.run.err, kStopped), 1u) << r.run.err;
    EXPECT_EQ(count_lines_containing(r.run.err, "is not sampled: sampling stopped in its parent"),
              1u)
        << r.run.err;
    for (const auto &proc : r.profile.reader->processes()) {
        EXPECT_EQ(proc.exit_status, std::optional<int>(0)) << proc.info.pid;
        // One notice each: the parent stopped, the child not sampled.
        EXPECT_EQ(notices(r.profile, proc.info.pid, "sampling stopped"), 1u) << proc.info.pid;
    }
    EXPECT_LT(r.profile.samples.size(), 100u); // 0.6 s of CPU time unsampled
}

// A fork child that resets every signal to its default action and runs on.
class ForkReset : public ::testing::TestWithParam<const char *> {};

TEST_P(ForkReset, ChildIsNotKilledByAnOverflow) {
    TempDir dir;
    std::string mode = GetParam();
    Recorded r = record(dir, {TRAPPER_EXE, mode});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, "child exit 0").size(), 1u) << r.run.out;
    ASSERT_TRUE(r.profile) << r.profile.error;
    ASSERT_EQ(r.profile.reader->processes().size(), 2u);
    for (const auto &proc : r.profile.reader->processes()) {
        EXPECT_EQ(proc.exit_status, std::optional<int>(0)) << proc.info.pid;
        EXPECT_EQ(proc.killed_by_signal, std::nullopt) << proc.info.pid;
    }
    const auto &procs = r.profile.reader->processes();
    int child = procs[0].info.ppid == procs[1].info.pid ? procs[0].info.pid : procs[1].info.pid;
    if (mode == "fork-reset") {
        // By the system call instruction: found, and sampling stopped in
        // the child alone.
        std::string said =
            "sampling stopped in process " + std::to_string(child) + " (record_trapper)";
        EXPECT_EQ(count_lines_containing(r.run.err, said), 1u) << r.run.err;
        EXPECT_EQ(notices(r.profile, child, said), 1u);
    } else {
        // Through libc: kept, sampled (0.3 s of CPU time in the child).
        EXPECT_EQ(count_lines_containing(r.run.err, "sampling stopped"), 0u) << r.run.err;
        EXPECT_EQ(count_lines_containing(r.run.err, kKept), 1u) << r.run.err;
        EXPECT_EQ(notices(r.profile, child, kKept), 1u);
        size_t in_child = 0;
        for (const SampleCopy &s : r.profile.samples)
            in_child += s.pid == child;
        std::printf("%s: %zu samples in the child\n", mode.c_str(), in_child);
        expect_spins_sampled(r, in_child, "child");
    }
    EXPECT_TRUE(r.profile.reader->accounting_balanced());
}

INSTANTIATE_TEST_SUITE_P(RecordSigtrap, ForkReset,
                         ::testing::Values("fork-reset", "fork-reset-syscall", "fork-reset-libc"));

// A real Go program, built with cgo: its runtime takes every signal
// through the C library, where the agent keeps SIGTRAP and the sampling
// signal; it is profiled, and its own SIGTRAP reaches its signal.Notify.
TEST(RecordSigtrap, GoProgram) {
    if (system("command -v go >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "no Go toolchain (Debian's golang-go): the Go program is not tested";
    TempDir dir;
    std::string build = "cd " GOTRAP_SRC " && GOCACHE=" GO_CACHE " GOPATH=" GO_CACHE
                        "/path GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 "
                        "go build -o " +
                        dir.file("gotrap") + " . > " + dir.file("build.log") + " 2>&1";
    ASSERT_EQ(system(build.c_str()), 0) << read_file(dir.file("build.log"));
    Recorded r = record(dir, {dir.file("gotrap")});
    expect_unharmed(r);
    EXPECT_EQ(lines_with(r.run.out, "gotrap ok trap received").size(), 1u) << r.run.out;
    EXPECT_EQ(count_lines_containing(r.run.err, "sampling stopped"), 0u) << r.run.err;
    EXPECT_EQ(count_lines_containing(r.run.err, kKept), 1u) << r.run.err;
    // Go's runtime ends the process with a raw exit_group: no exit handler
    // runs, and the recorder names that among the causes of the silence.
    EXPECT_EQ(count_lines_containing(r.run.err, "raw exit_group system call"), 1u) << r.run.err;
    ASSERT_TRUE(r.profile) << r.profile.error;
    // Goroutines run on stacks of the runtime's own (the walk copies them),
    // Go's code has no unwind rows but keeps frame pointers, and each
    // goroutine's first function returns into runtime.goexit with a zero
    // frame pointer: the stacks go from gotrapSpin through its goroutine's
    // function to goexit, and end there complete.
    ProfileSymbols syms(*r.profile.reader);
    size_t spin = 0, through = 0;
    for (const SampleCopy &s : r.profile.samples) {
        std::vector<std::string> names = syms.stack(s.view(), true);
        if (std::find(names.begin(), names.end(), "main.gotrapSpin") == names.end())
            continue;
        ++spin;
        bool caller = std::any_of(names.begin(), names.end(), [](const std::string &n) {
            return n.rfind("main.main", 0) == 0;
        });
        through += s.complete && caller && names.back().rfind("runtime.goexit", 0) == 0;
    }
    std::printf("Go: %zu samples, %zu in gotrapSpin, %zu of them complete through main.main* to "
                "runtime.goexit\n",
                r.profile.samples.size(), spin, through);
    EXPECT_GT(spin, 200u); // 0.4 s of CPU time
    EXPECT_GE(double(through), 0.95 * double(spin));
}
