// SPDX-License-Identifier: MIT
// The recorder's off-CPU time (profiler/record/off_cpu.h): how switch
// records and reads of where a thread waits become stretches, on a made-up
// clock; and the read itself, of a child of this test blocked in read(),
// unwound to the function that called read().
#include "profiler/agent/module_scan.h"
#include "profiler/record/off_cpu.h"
#include "profiler/record/stack_unwind.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

namespace {

using cpcprof::record::OffCpuStretch;
using cpcprof::record::OffCpuTracker;
using cpcprof::record::WaitingStack;

constexpr int64_t kMs = 1'000'000;

// A tracker on a clock and reads the test sets: a read of a thread gives
// the frames {0x1000 + tid, 0x2000} and takes read_ns.
struct Tracker {
    int64_t now = 0;
    int64_t read_ns = 100'000;
    int reads = 0;
    OffCpuTracker t{kMs,
                    [](pid_t, const WaitingStack &w, std::vector<uint64_t> *frames) {
                        frames->push_back(w.pc);
                        frames->push_back(0x2000);
                        return true;
                    },
                    [this](pid_t, pid_t tid, WaitingStack *w) {
                        ++reads;
                        w->pc = 0x1000 + uint64_t(tid);
                        now += read_ns;
                        return true;
                    },
                    [this] { return now; }};
};

TEST(OffCpuTracker, AStretchReadWhileTheThreadWaitedHasItsStack) {
    Tracker k;
    k.t.switched(10, 11, 5 * kMs, true, false);
    k.now = 6 * kMs;
    k.t.look();
    k.t.look(); // read once per stretch
    EXPECT_EQ(k.reads, 1);
    k.t.switched(10, 11, 25 * kMs, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].pid, 10);
    EXPECT_EQ(s[0].tid, 11);
    EXPECT_EQ(s[0].time_ns, 5 * kMs);
    EXPECT_EQ(s[0].duration_ns, uint64_t(20 * kMs));
    EXPECT_EQ(s[0].stretches, 1u);
    EXPECT_FALSE(s[0].preempted);
    EXPECT_TRUE(s[0].complete);
    EXPECT_EQ(s[0].frames, (std::vector<uint64_t>{0x100b, 0x2000}));
    EXPECT_EQ(k.t.counts().stretches, 1u);
    EXPECT_EQ(k.t.counts().read, 1u);
}

// Where the kernel samples each switch out (at_switch, just before the
// switch record), every stretch has that stack with no read from outside,
// and short ones are summed per stack instead of into one unknown sum.
TEST(OffCpuTracker, TheKernelsStackAtASwitchNamesEvenAShortWait) {
    Tracker k;
    const std::vector<uint64_t> a = {0xa1, 0xa0}, b = {0xb1, 0xb0};
    int64_t t = 1 * kMs;
    for (int i = 0; i < 6; ++i) { // 200 us waits: three at a, three at b
        k.t.at_switch(10, 11, t - 2'000, i % 2 == 0, i < 3 ? a : b);
        k.t.switched(10, 11, t, true, false);
        k.t.look();
        k.t.switched(10, 11, t + 200'000, false, false);
        t += 500'000;
    }
    // A long one: its stack too, still unread.
    k.t.at_switch(10, 11, t - 1'000, true, b);
    k.t.switched(10, 11, t, true, false);
    k.now = t + kMs;
    k.t.look();
    k.t.switched(10, 11, t + 5 * kMs, false, false);
    EXPECT_EQ(k.reads, 0) << "the kernel's stack needs no read";
    std::vector<OffCpuStretch> s = k.t.take(true);
    ASSERT_EQ(s.size(), 3u);
    std::map<std::vector<uint64_t>, std::pair<uint64_t, uint64_t>> by_stack; // ns, stretches
    for (const OffCpuStretch &st : s) {
        EXPECT_FALSE(st.preempted);
        by_stack[st.frames].first += st.duration_ns;
        by_stack[st.frames].second += st.stretches;
    }
    EXPECT_EQ(by_stack[a], (std::pair<uint64_t, uint64_t>{600'000, 3}));
    EXPECT_EQ(by_stack[b], (std::pair<uint64_t, uint64_t>{600'000 + 5 * kMs, 4}));
    EXPECT_EQ(k.t.counts().read, 7u);
    EXPECT_EQ(k.t.counts().short_ones, 6u);
}

// A short wait whose read fell inside it keeps the stack read, summed
// with the others at that stack.
TEST(OffCpuTracker, AShortWaitReadInTimeKeepsItsStack) {
    Tracker k;
    k.t.switched(10, 11, 1 * kMs, true, false);
    k.now = 1 * kMs + 100'000;
    k.t.look(); // 1.1 - 1.2 ms
    k.t.switched(10, 11, 1 * kMs + 400'000, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].duration_ns, 400'000u);
    EXPECT_EQ(s[0].stretches, 1u);
    EXPECT_EQ(s[0].frames, (std::vector<uint64_t>{0x100b, 0x2000}));
}

// A sample older than the slack before the switch out, or one before a
// preemption, is no stretch's: the stretch is read from outside as before.
TEST(OffCpuTracker, AKernelStackTooOldOrBeforeAPreemptionIsNotUsed) {
    Tracker k;
    const std::vector<uint64_t> a = {0xa1, 0xa0};
    k.t.at_switch(10, 11, 1 * kMs, true, a);
    k.t.switched(10, 11, 1 * kMs + OffCpuTracker::kSwitchSampleSlackNs + 1, true, false);
    k.now = 4 * kMs;
    k.t.look();
    k.t.switched(10, 11, 6 * kMs, false, false);
    k.t.at_switch(10, 11, 7 * kMs, true, a);
    k.t.switched(10, 11, 7 * kMs + 1'000, true, true); // preempted
    k.t.switched(10, 11, 9 * kMs, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(k.reads, 1);
    EXPECT_EQ(s[0].frames, (std::vector<uint64_t>{0x100b, 0x2000})) << "read, not the old sample";
    EXPECT_TRUE(s[1].preempted);
    EXPECT_TRUE(s[1].frames.empty());
}

TEST(OffCpuTracker, AReadTheThreadOutranLendsItsStackToNoStretch) {
    Tracker k;
    // The read ends at 5.1 ms; the thread was back at 5.05 ms and off again
    // from 5.08 ms: the read fell across both stretches.
    k.t.switched(10, 11, 1 * kMs, true, false);
    k.now = 5 * kMs;
    k.t.look();
    k.t.switched(10, 11, 5 * kMs + 50'000, false, false);
    k.t.switched(10, 11, 5 * kMs + 80'000, true, false);
    k.t.switched(10, 11, 5 * kMs + 500'000, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_TRUE(s[0].frames.empty());
    EXPECT_FALSE(s[0].complete);
    EXPECT_EQ(s[1].stretches, 1u) << "the second stretch is short: summed";
    EXPECT_TRUE(s[1].frames.empty());
    EXPECT_EQ(k.t.counts().read, 0u);
}

TEST(OffCpuTracker, AReadDuringALaterStretchIsThatStretchs) {
    Tracker k;
    // The recorder learns of the first switch out late: by its read the
    // thread has run and blocked again; the read is the second stretch's.
    k.t.switched(10, 11, 1 * kMs, true, false);
    k.now = 8 * kMs;
    k.t.look();
    k.t.switched(10, 11, 3 * kMs, false, false);
    k.t.switched(10, 11, 4 * kMs, true, false);
    k.t.switched(10, 11, 12 * kMs, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_TRUE(s[0].frames.empty());
    EXPECT_EQ(s[1].time_ns, 4 * kMs);
    EXPECT_EQ(s[1].frames.size(), 2u);
}

TEST(OffCpuTracker, ShortStretchesAreSummedPerThreadAndKind) {
    Tracker k;
    k.read_ns = 300'000; // longer than the waits: none is read in time
    int64_t at = 0;
    for (int i = 0; i < 5; ++i) { // 0.2 ms blocked each
        k.t.switched(10, 11, at, true, false);
        k.t.look();
        k.t.switched(10, 11, at + 200'000, false, false);
        at += kMs;
    }
    for (int i = 0; i < 3; ++i) { // 0.5 ms preempted each
        k.t.switched(10, 11, at, true, true);
        k.t.look();
        k.t.switched(10, 11, at + 500'000, false, false);
        at += kMs;
    }
    EXPECT_EQ(k.reads, 5) << "a preempted thread is not read";
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_FALSE(s[0].preempted);
    EXPECT_EQ(s[0].stretches, 5u);
    EXPECT_EQ(s[0].duration_ns, 1'000'000u);
    EXPECT_EQ(s[0].time_ns, 0);
    EXPECT_TRUE(s[0].frames.empty());
    EXPECT_TRUE(s[1].preempted);
    EXPECT_EQ(s[1].stretches, 3u);
    EXPECT_EQ(s[1].duration_ns, 1'500'000u);
    EXPECT_EQ(s[1].time_ns, 5 * kMs);
    EXPECT_EQ(k.t.counts().short_ones, 8u);
    EXPECT_TRUE(k.t.take().empty()) << "said once";
}

TEST(OffCpuTracker, APreemptedStretchIsKeptWithoutAStack) {
    Tracker k;
    k.t.switched(10, 12, 0, true, true);
    k.now = kMs;
    k.t.look();
    k.t.switched(10, 12, 4 * kMs, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_TRUE(s[0].preempted);
    EXPECT_EQ(s[0].duration_ns, uint64_t(4 * kMs));
    EXPECT_TRUE(s[0].frames.empty());
    EXPECT_EQ(k.reads, 0);
}

TEST(OffCpuTracker, AThreadsLastSwitchOutEndsNothingAndTheEndEndsTheRest) {
    Tracker k;
    k.t.switched(10, 11, 0, true, false); // exits while off
    k.t.ended(11);
    k.t.switched(10, 12, 2 * kMs, true, false); // still waits at the end
    k.now = 50 * kMs;
    std::vector<OffCpuStretch> s = k.t.take(true);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].tid, 12);
    EXPECT_EQ(s[0].time_ns, 2 * kMs);
    // Read at the end (50 ms, taking 0.1 ms), cut there.
    EXPECT_EQ(s[0].duration_ns, uint64_t(48 * kMs + 100'000));
    EXPECT_EQ(s[0].frames.size(), 2u);
}

TEST(OffCpuTracker, ASwitchOutReadAfterItsSwitchInStillEndsItsStretch) {
    Tracker k;
    // The thread left CPU 0 at 1 ms and got CPU 1 at 6 ms; CPU 1's ring was
    // read first, then it ran and left again at 7 ms; CPU 0's ring next.
    k.t.switched(10, 11, 6 * kMs, false, false);
    k.t.switched(10, 11, 7 * kMs, true, false);
    k.t.switched(10, 11, 1 * kMs, true, false);
    k.t.switched(10, 11, 9 * kMs, false, false);
    std::vector<OffCpuStretch> s = k.t.take();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].time_ns, 1 * kMs);
    EXPECT_EQ(s[0].duration_ns, uint64_t(5 * kMs));
    EXPECT_EQ(s[1].time_ns, 7 * kMs);
    EXPECT_EQ(s[1].duration_ns, uint64_t(2 * kMs));
}

TEST(OffCpuTracker, ASwitchInWithoutItsSwitchOutIsNoStretch) {
    Tracker k;
    k.t.switched(10, 11, 3 * kMs, false, false); // off since before the rings
    EXPECT_TRUE(k.t.take().empty());
    EXPECT_EQ(k.t.counts().stretches, 0u);
}

// ---- The read, on a real waiting thread ------------------------------------

__attribute__((noinline)) ssize_t wait_in_read(int fd, char *c) {
    ssize_t n = read(fd, c, 1);
    asm volatile("" ::: "memory"); // the call is not a tail call
    return n;
}

std::vector<cpcprof::record::CopiedStackUnwinder::Mapping> mappings_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<cpcprof::record::CopiedStackUnwinder::Mapping> maps;
    for (const cpcprof::agent::MapsLine &l : cpcprof::agent::parse_exec_maps(text.str()))
        if (l.path != "[vdso]")
            maps.push_back({l.start, l.end, l.file_offset, l.path});
    return maps;
}

TEST(OffCpuRead, AThreadBlockedInReadIsUnwoundToItsCaller) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(fds[1]);
        char c;
        _exit(wait_in_read(fds[0], &c) == 1 ? 0 : 1);
    }
    close(fds[0]);
    // Until it waits (bounded: 5 s).
    WaitingStack w;
    bool waiting = false;
    for (int i = 0; i < 500 && !waiting; ++i) {
        waiting = cpcprof::record::read_waiting_stack(child, child, 16 * 1024, &w);
        if (!waiting)
            usleep(10'000);
    }
    cpcprof::record::CopiedStackUnwinder unwinder;
    unwinder.set_mappings(child, mappings_of(child));
    std::vector<uint64_t> frames;
    const uint64_t regs[2] = {w.sp, w.pc};
    if (waiting)
        unwinder.unwind(child, regs, (uint64_t{1} << 7) | (uint64_t{1} << 8), w.bytes.data(),
                        w.bytes.size(), 64, &frames);
    ASSERT_EQ(write(fds[1], "x", 1), 1);
    close(fds[1]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_TRUE(waiting) << "the child never showed as waiting in /proc/PID/syscall";
    EXPECT_GE(w.bytes.size(), 4096u);
    const auto fn = reinterpret_cast<uint64_t>(&wait_in_read);
    ASSERT_GE(frames.size(), 2u);
    EXPECT_EQ(frames[0], w.pc);
    bool in_caller = false;
    for (uint64_t f : frames)
        in_caller |= f > fn && f < fn + 128;
    EXPECT_TRUE(in_caller) << "no return address into wait_in_read among " << frames.size()
                           << " frames";
}

} // namespace
