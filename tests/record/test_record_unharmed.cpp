// SPDX-License-Identifier: MIT
// Programs that sampling must leave as they are, and whose overflows must
// all be accounted for: threads with small alternate signal stacks (as
// Rust gives every thread), a thread that blocks every signal with a raw
// system call, and 2,000 threads alive at once.  Each test compares the
// program's output and exit status with the run without the profiler.
#include "tests/record/record_harness.h"

#include <sys/auxv.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

struct Recorded {
    RunResult bare, run;
    Profile profile;
};

Recorded record(const TempDir &dir, const std::vector<std::string> &record_args,
                const std::vector<std::string> &argv) {
    Recorded r;
    r.bare = run_program(dir, argv);
    std::vector<std::string> args{"record", "-o", "out.cpcprof", "--no-symbolize"};
    args.insert(args.end(), record_args.begin(), record_args.end());
    args.push_back("--");
    args.insert(args.end(), argv.begin(), argv.end());
    r.run = run_cpcprof(dir, args, 120);
    r.profile = load_profile(dir.file("out.cpcprof"));
    return r;
}

bool skip_sanitized() {
#ifdef RECORD_AGENT_SANITIZED
    return true;
#else
    return false;
#endif
}

// The figure after `name ` on a line of text, or -1.
double figure(const std::string &text, const std::string &name, int index = 0) {
    for (const std::string &l : lines_with(text, name + " ")) {
        double a = -1, b = -1;
        if (std::sscanf(l.c_str(), "%lf %lf", &a, &b) >= 1)
            return index == 0 ? a : b;
    }
    return -1;
}

class AltStack : public ::testing::TestWithParam<const char *> {};

} // namespace

// Every thread has an alternate signal stack of the given size with
// canaries around it (or a guard page below it) and a SIGSEGV handler on
// it; the profiler's overflows must neither overflow it nor write around it.
TEST_P(AltStack, CanariesIntactAndOutputUnchanged) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    TempDir dir;
    for (const char *mode : {"dwarf", "fp"}) {
        Recorded r = record(dir, {"-F", "2000", "--call-graph", mode}, {ALTSTACK_EXE, GetParam()});
        ASSERT_EQ(r.bare.status, 0) << r.bare.out << r.bare.err;
        ASSERT_NE(r.bare.out.find("canaries intact"), std::string::npos);
        EXPECT_EQ(r.run.status, r.bare.status) << mode << "\n" << r.run.err;
        EXPECT_EQ(r.run.out, r.bare.out) << mode;
        ASSERT_TRUE(r.profile) << r.profile.error;
        EXPECT_GT(r.profile.samples.size(), 100u) << mode << ": the threads were sampled";
    }
}

INSTANTIATE_TEST_SUITE_P(Record, AltStack, ::testing::Values("2048", "min", "8192g"),
                         [](const ::testing::TestParamInfo<const char *> &p) {
                             std::string s = p.param;
                             return s == "2048"  ? std::string("MinSigStkSz")
                                    : s == "min" ? std::string("AtMinSigStkSz")
                                                 : std::string("EightKiBGuarded");
                         });

// A real Rust program (its runtime's 8 KiB guarded alternate stacks on
// every thread), built with rustc where it is installed: profiled in every
// call-graph mode, its output and status those of the bare run.
TEST(RecordRust, ThreadsWithRustsAlternateStacksAreProfiled) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    if (std::system("command -v rustc >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "rustc is not installed (apt-get install rustc)";
    TempDir dir;
    std::string exe = dir.file("rust_threads");
    std::string build =
        "rustc -O -g -o " + exe + " " RUST_THREADS_SRC " > " + dir.file("build.log") + " 2>&1";
    ASSERT_EQ(std::system(build.c_str()), 0) << read_file(dir.file("build.log"));
    for (const char *mode : {"dwarf", "fp", "none"}) {
        Recorded r = record(dir, {"-F", "2000", "--call-graph", mode}, {exe, "1500"});
        ASSERT_EQ(r.bare.status, 0) << r.bare.err;
        EXPECT_EQ(r.run.status, 0) << mode << "\n" << r.run.err;
        EXPECT_EQ(r.run.out, r.bare.out) << mode;
        ASSERT_TRUE(r.profile) << r.profile.error;
        std::set<int> threads;
        for (const SampleCopy &s : r.profile.samples)
            threads.insert(s.tid);
        EXPECT_GT(r.profile.samples.size(), 200u) << mode;
        EXPECT_EQ(threads.size(), 4u) << mode << ": main and its three threads";
    }
}

// How deep below the interrupted code a sample writes: the kernel's
// signal frame plus the handlers.  The frame is measured on this machine
// (a plain signal with an empty handler, same target); the profiler's
// handlers may add at most 1 KiB to it, in every call-graph mode.
TEST(RecordHandlerStack, AtMostOneKiBAboveTheKernelsSignalFrame) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    TempDir dir;
    RunResult plain = run_program(dir, {ALTSTACK_EXE, "painted-signal"});
    double frame = figure(plain.out, "stack_used");
    ASSERT_GT(frame, 1000) << plain.out << plain.err;
    RunResult bare = run_program(dir, {ALTSTACK_EXE, "painted"});
    ASSERT_EQ(figure(bare.out, "stack_used"), 0) << "the work itself stays above the paint";
    for (const char *mode : {"dwarf", "fp", "none"}) {
        RunResult r =
            run_cpcprof(dir, {"record", "-q", "-F", "4000", "--call-graph", mode, "-o",
                              "out.cpcprof", "--no-symbolize", "--", ALTSTACK_EXE, "painted"});
        ASSERT_EQ(r.status, 0) << r.err;
        double used = figure(r.out, "stack_used");
        EXPECT_GT(used, frame) << mode << ": no sample was taken on the painted stack";
        EXPECT_LE(used, frame + 1024) << mode << ": the kernel's frame takes " << frame;
    }
}

// A thread that blocks every signal with a raw rt_sigprocmask cannot be
// sampled while it works; its overflows wait behind the blocked signal and
// are let in at its end: counted (taken), a few stored with the kernel's
// PC, the rest dropped - never lost without a trace.
TEST(RecordBlockedSignals, OverflowsOfABlockedThreadAreCounted) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    TempDir dir;
    Recorded r = record(dir, {"-e", "cpu-clock,1000000"}, {SIGBLOCK_EXE});
    ASSERT_EQ(r.bare.status, 0);
    ASSERT_NE(r.bare.out.find("blocked ok"), std::string::npos) << r.bare.out;
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_EQ(r.run.out, r.bare.out) << "the program's own mask is as it set it";
    ASSERT_TRUE(r.profile) << r.profile.error;
    double main_cpu = figure(r.run.err, "cpu", 0), blocked_cpu = figure(r.run.err, "cpu", 1);
    double process_cpu = figure(r.run.err, "process");
    ASSERT_GT(blocked_cpu, 0.1) << r.run.err;
    auto main_ref = clock_reference(r.run.err, "main");
    auto blocked_ref = clock_reference(r.run.err, "blocked");
    ASSERT_TRUE(main_ref && blocked_ref) << "no reference counts of the threads' clock periods:\n"
                                         << r.run.err;
    storage::Accounting a = r.profile.reader->accounting_total();
    EXPECT_EQ(a.taken, a.stored + a.dropped);
    size_t stored_blocked = 0;
    int pid = r.profile.reader->processes().at(0).info.pid;
    for (const SampleCopy &s : r.profile.samples)
        stored_blocked += s.tid != pid;
    // Every period of both threads' work that the kernel took as an
    // overflow is counted (the target's reference counts say how many
    // that is, beside other work), and at most every period of the
    // process's CPU time: the work's, and what the process spent outside
    // it (its start, the agent's own thread).
    uint64_t fewest = main_ref->fewest_samples() + blocked_ref->fewest_samples();
    uint64_t outside = uint64_t(std::ceil((process_cpu - main_cpu - blocked_cpu) * 1000));
    uint64_t most = main_ref->most_samples() + blocked_ref->most_samples() + outside;
    uint64_t of_blocked = stored_blocked + a.dropped;
    uint64_t of_main = a.taken > of_blocked ? a.taken - of_blocked : 0;
    std::string detail = "taken " + std::to_string(a.taken) + " (stored " +
                         std::to_string(a.stored) + ", " + std::to_string(stored_blocked) +
                         " of the blocked thread; dropped " + std::to_string(a.dropped) +
                         "), expected " + std::to_string(fewest) + " to " + std::to_string(most) +
                         "; main: " + main_ref->story(of_main) +
                         "; blocked: " + blocked_ref->story(of_blocked) + "\n" + r.run.err;
    EXPECT_GE(a.taken, fewest) << detail;
    EXPECT_LE(a.taken, most) << detail;
    // The blocked thread's overflows are stored (a few, with the
    // kernel's PC) or dropped, not missing.
    EXPECT_GE(of_blocked, blocked_ref->fewest_samples()) << detail;
    EXPECT_GE(double(a.dropped), 0.5 * blocked_cpu * 1000)
        << "the blocked thread's overflows are dropped, not missing";
}

// The same thread blocking every signal through pthread_sigmask, which
// the agent sees: the profiler's signals stay unblocked and the thread is
// sampled like any other, said once.
TEST(RecordBlockedSignals, ALibraryMaskKeepsTheProfilersSignalsOpen) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    TempDir dir;
    Recorded r = record(dir, {"-e", "cpu-clock,1000000"}, {SIGBLOCK_EXE, "--libc"});
    ASSERT_EQ(r.bare.status, 0);
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_EQ(r.run.out, r.bare.out);
    ASSERT_TRUE(r.profile) << r.profile.error;
    EXPECT_EQ(count_lines_containing(r.run.err, "keeps them unblocked"), 1u) << r.run.err;
    storage::Accounting a = r.profile.reader->accounting_total();
    EXPECT_EQ(a.taken, a.stored + a.dropped);
    EXPECT_LE(a.dropped, a.taken / 20) << "the thread was sampled, not only counted";
    auto main_ref = clock_reference(r.run.err, "main");
    auto blocked_ref = clock_reference(r.run.err, "blocked");
    ASSERT_TRUE(main_ref && blocked_ref) << "no reference counts of the threads' clock periods:\n"
                                         << r.run.err;
    std::map<int, size_t> per_thread;
    for (const SampleCopy &s : r.profile.samples)
        ++per_thread[s.tid];
    ASSERT_EQ(per_thread.size(), 2u);
    int pid = r.profile.reader->processes().at(0).info.pid;
    for (const auto &[tid, n] : per_thread) {
        const ClockReference &ref = tid == pid ? *main_ref : *blocked_ref;
        EXPECT_GE(n, ref.fewest_samples()) << "thread " << tid << ": " << ref.story(n);
    }
}

// 2,000 threads alive at once: every one has a slot, is in the file and
// sampled, and the accounting balances.
TEST(RecordThreadWave, TwoThousandLiveThreadsAreAllRecorded) {
    if (skip_sanitized())
        GTEST_SKIP() << "the sanitized agent cannot be preloaded into the targets";
    TempDir dir;
    Recorded r = record(dir, {"-e", "cpu-clock,200000", "--ring-kb", "16"},
                        {THREADWAVE_EXE, "--threads", "2000", "--work", "4"});
    ASSERT_EQ(r.bare.status, 0) << r.bare.err;
    EXPECT_EQ(r.run.status, 0) << r.run.err;
    EXPECT_EQ(r.run.out, r.bare.out);
    ASSERT_TRUE(r.profile) << r.profile.error;
    EXPECT_GE(r.profile.reader->threads().size(), 2001u) << "2,000 threads and main";
    std::set<int> sampled;
    for (const SampleCopy &s : r.profile.samples)
        sampled.insert(s.tid);
    EXPECT_GE(sampled.size(), 1900u) << "threads with samples (each ran ~1.6 ms of CPU)";
    storage::Accounting a = r.profile.reader->accounting_total();
    EXPECT_EQ(a.taken, a.stored + a.dropped);
    EXPECT_LE(a.dropped, a.taken / 20) << "no slot missing for a live thread";
}
