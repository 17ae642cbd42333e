// SPDX-License-Identifier: MIT
// The clock helpers read the clocks they name, convert timespecs exactly,
// and current_tid names the calling thread.
#include "base/clock.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace cpcprof::base;

namespace {

int64_t raw_ns(clockid_t clock) {
    timespec ts{};
    EXPECT_EQ(clock_gettime(clock, &ts), 0);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// value was read between two readings of clock.
void expect_between(clockid_t clock, int64_t (*read)()) {
    int64_t before = raw_ns(clock);
    int64_t value = read();
    int64_t after = raw_ns(clock);
    EXPECT_LE(before, value);
    EXPECT_LE(value, after);
}

} // namespace

TEST(Clock, TimespecToNanoseconds) {
    EXPECT_EQ(to_ns(timespec{0, 0}), 0);
    EXPECT_EQ(to_ns(timespec{1, 5}), 1'000'000'005);
    EXPECT_EQ(to_ns(timespec{0, 999'999'999}), 999'999'999);
    // Beyond 32 bits of seconds (the year 2106 and later) without overflow.
    EXPECT_EQ(to_ns(timespec{5'000'000'000, 1}), 5'000'000'000'000'000'001);
    static_assert(to_ns(timespec{2, 3}) == 2'000'000'003);
}

TEST(Clock, EachHelperReadsItsClock) {
    expect_between(CLOCK_MONOTONIC, monotonic_ns);
    expect_between(CLOCK_REALTIME, realtime_ns);
    expect_between(CLOCK_THREAD_CPUTIME_ID, thread_cpu_ns);
    int64_t before = raw_ns(CLOCK_MONOTONIC) / 1'000'000;
    int64_t ms = monotonic_ms();
    int64_t after = raw_ns(CLOCK_MONOTONIC) / 1'000'000;
    EXPECT_LE(before, ms);
    EXPECT_LE(ms, after);
}

TEST(Clock, ThreadCpuTimeCountsOnlyThisThreadsWork) {
    // Judged on this thread's own CPU clock: 5 ms of work show as at
    // least 5 ms, whatever else the machine does.
    int64_t start = thread_cpu_ns();
    volatile uint64_t sink = 0;
    while (raw_ns(CLOCK_THREAD_CPUTIME_ID) - start < 5'000'000)
        sink = sink + 1;
    EXPECT_GE(thread_cpu_ns() - start, 5'000'000);
    // A thread that sleeps uses next to no CPU time (the sleep is far
    // longer than anything the thread does around it).
    int64_t before_sleep = thread_cpu_ns();
    usleep(50'000);
    EXPECT_LT(thread_cpu_ns() - before_sleep, 25'000'000);
}

TEST(Clock, ErrnoIsLeftAlone) {
    errno = 1234;
    (void)monotonic_ns();
    (void)thread_cpu_ns();
    (void)current_tid();
    EXPECT_EQ(errno, 1234);
}

TEST(Clock, CurrentTidNamesTheCallingThread) {
    EXPECT_EQ(current_tid(), getpid()); // the main thread's id is the process's
    EXPECT_EQ(current_tid(), pid_t(syscall(SYS_gettid)));
    struct Ids {
        pid_t ours, kernels;
    } ids{};
    pthread_t t;
    ASSERT_EQ(pthread_create(
                  &t, nullptr,
                  [](void *p) -> void * {
                      auto *ids = static_cast<Ids *>(p);
                      ids->ours = current_tid();
                      ids->kernels = pid_t(syscall(SYS_gettid));
                      return nullptr;
                  },
                  &ids),
              0);
    ASSERT_EQ(pthread_join(t, nullptr), 0);
    EXPECT_EQ(ids.ours, ids.kernels);
    EXPECT_NE(ids.ours, getpid());
}
