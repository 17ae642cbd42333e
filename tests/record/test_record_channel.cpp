// SPDX-License-Identifier: MIT
// The agent's channel to the recorder is a descriptor in the target's own
// table.  Targets that close every descriptor they did not open, mark them
// all close-on-exec, or put a file of their own at its number are still
// recorded; one that closes it with a raw system call is reported, not
// silently missing.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

using namespace cpcprof::test;

namespace {

constexpr const char *kSilent = "stopped reporting";

// Runs "closer MODE" at 1 kHz; returns its work's samples (0.3 s of CPU
// time in cl_work) and the kernel's own count of that work's clock
// periods (the target's reference event): sampled, the work has as many
// samples as the reference allows.
struct Closed {
    RunResult run;
    Profile profile;
    size_t in_work = 0;
    double work_ms = 0;
    std::optional<ClockReference> ref;
    // The work was sampled: as many samples as the reference allows.
    void expect_sampled() const {
        ASSERT_TRUE(ref) << "the target counted no clock periods of its own:\n" << run.out;
        EXPECT_GE(in_work, ref->fewest_samples()) << ref->story(in_work);
        EXPECT_LE(in_work, ref->most_samples()) << ref->story(in_work);
    }
};

Closed record_closer(const TempDir &dir, const std::string &mode) {
    Closed c;
    c.run = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", CLOSER_EXE, mode});
    auto work = lines_with(c.run.out, "work ");
    if (work.size() == 1)
        c.work_ms = std::stod(work[0]) * 1000;
    c.ref = clock_reference(c.run.out, "work");
    c.profile = load_profile(dir.file("out.cpcprof"));
    if (c.profile) {
        ProfileSymbols syms(*c.profile.reader);
        c.in_work = samples_in(c.profile, syms, "cl_work");
    }
    std::printf("closer %s: %zu samples in cl_work for %.1f ms of CPU\n", mode.c_str(), c.in_work,
                c.work_ms);
    return c;
}

} // namespace

// close(3..1023), close_range(3, ~0U, 0) and closefrom(3) in one program.
TEST(RecordChannel, TargetThatClosesEveryDescriptorIsStillRecorded) {
    TempDir dir;
    Closed c = record_closer(dir, "all");
    ASSERT_EQ(c.run.status, 0) << c.run.err << c.run.out;
    ASSERT_TRUE(c.profile) << c.profile.error;
    ASSERT_GT(c.work_ms, 0) << c.run.out;
    c.expect_sampled();
    EXPECT_EQ(c.run.err.find(kSilent), std::string::npos) << c.run.err;
    EXPECT_TRUE(c.profile.reader->accounting_balanced());
}

// "closer MODE" execs itself as "closer work", whose work must be sampled.
void expect_next_image_recorded(const std::string &mode) {
    TempDir dir;
    Closed c = record_closer(dir, mode);
    ASSERT_EQ(c.run.status, 0) << c.run.err << c.run.out;
    ASSERT_TRUE(c.profile) << c.profile.error;
    ASSERT_EQ(c.profile.reader->processes().size(), 1u);
    EXPECT_EQ(c.profile.reader->processes()[0].info.argv,
              (std::vector<std::string>{"closer", "work"}));
    c.expect_sampled();
    EXPECT_EQ(c.run.err.find(kSilent), std::string::npos) << c.run.err;
}

TEST(RecordChannel, CloseOnExecOverEveryDescriptorKeepsTheNextImageRecorded) {
    expect_next_image_recorded("cloexec-exec");
}

// The program puts /dev/null at the channel's number and execs with an
// environment it copied before: the program gets its dup2, the agent's
// channel moves, and the next image finds it at its new number.
TEST(RecordChannel, Dup2OntoTheChannelMovesItAndTheNextImageFindsIt) {
    expect_next_image_recorded("dup2-exec");
}

// syscall(SYS_close_range, ...) cannot be intercepted: the target runs on
// unharmed and cpcprof says what happened.
TEST(RecordChannel, ChannelClosedByARawSystemCallIsReported) {
    TempDir dir;
    Closed c = record_closer(dir, "raw");
    EXPECT_EQ(c.run.status, 0) << c.run.err;
    EXPECT_GT(c.work_ms, 0) << c.run.out;
    ASSERT_TRUE(c.profile) << c.profile.error;
    auto said = lines_with(c.run.err, "cpcprof: 1 process stopped reporting");
    ASSERT_EQ(said.size(), 1u) << c.run.err;
    EXPECT_NE(said[0].find("closed the profiler's channel"), std::string::npos) << said[0];
    EXPECT_LT(double(c.in_work), 0.5 * c.work_ms) << "the channel was not lost after all?";
}
