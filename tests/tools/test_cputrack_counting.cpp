// SPDX-License-Identifier: MIT
// cputrack(1) counting: per-thread counts against what each thread of the
// target measured itself, ticks at each interval and the totals at exit,
// -N, -n and -t, several sets taking turns, and a generic hardware event.
#include "tests/tools/cputrack_harness.h"

#include <gtest/gtest.h>

#include <libcpc.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace {

using namespace cputracktest;

// ---- counting ----

struct ThreadReport {
    long tid;
    long long minflt, nvcsw, nivcsw;
};

TEST(Cputrack, PerThreadCountsMatchWhatEachThreadMeasured) {
    SKIP_WITHOUT_PTRACE();
    if (!can_count_system())
        GTEST_SKIP() << "counting context switches needs CPC_COUNT_SYSTEM, which "
                        "perf_event_paranoid forbids this user";
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    std::string report = dir + "/threads";
    // Thread i faults in 1000*(i+1) fresh pages and sleeps 200 times.
    Result r = run({"-v", "-T", "0.01", "-c", "page-faults,context-switches,sys", PCTX_THREADS,
                    report, "1000", "200"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<ThreadReport> threads;
    std::istringstream in(read_file(report));
    for (ThreadReport t; in >> t.tid >> t.minflt >> t.nvcsw >> t.nivcsw;)
        threads.push_back(t);
    ASSERT_EQ(threads.size(), 3u);

    std::vector<std::string> ls = split_lines(r.out);
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls[0], header({"pic0", "pic1"}, {}));
    std::vector<Line> lines = body(r.out, 1, {});
    ASSERT_FALSE(lines.empty());
    long main_tid = lines[0].lwp;

    // Per thread: init_lwp (and lwp_create but for the first), ticks, then
    // fini_lwp (and lwp_exit but for the first); the process's exit last.
    std::map<long, std::vector<std::string>> order;
    std::map<long, std::vector<long long>> fini, ticks_sum;
    std::vector<long long> fini_sum(2, 0);
    for (const Line &l : lines) {
        if (l.label == "exit")
            continue;
        order[l.lwp].push_back(l.label);
        ASSERT_EQ(l.values.size(), 2u);
        if (l.label == "fini_lwp") {
            fini[l.lwp] = l.values;
            for (size_t k = 0; k < 2; ++k)
                fini_sum[k] += l.values[k];
        }
        if (l.label == "tick") {
            ticks_sum[l.lwp].resize(2, 0);
            for (size_t k = 0; k < 2; ++k)
                ticks_sum[l.lwp][k] += l.values[k];
        }
        if (l.label == "lwp_exit") {
            EXPECT_EQ(l.values, fini[l.lwp]) << "lwp_exit repeats the thread's totals";
        }
        if (l.label == "init_lwp" || l.label == "lwp_create") {
            EXPECT_LE(l.values[0], 1) << "a new thread starts at 0";
        }
    }
    EXPECT_EQ(lines.back().label, "exit");
    EXPECT_EQ(lines.back().lwp, main_tid);
    EXPECT_EQ(lines.back().values, fini_sum) << "exit is the sum of every thread's totals";
    ASSERT_EQ(order.size(), 4u) << r.out;
    for (auto &[tid, labels] : order) {
        std::vector<std::string> shape;
        for (const std::string &s : labels)
            if (shape.empty() || s != "tick" || shape.back() != "tick")
                shape.push_back(s);
        std::vector<std::string> expect =
            tid == main_tid ? std::vector<std::string>{"init_lwp", "tick", "fini_lwp"}
                            : std::vector<std::string>{"init_lwp", "lwp_create", "tick", "fini_lwp",
                                                       "lwp_exit"};
        // A short-lived thread may end before its first tick.
        if (std::find(shape.begin(), shape.end(), "tick") == shape.end())
            expect.erase(std::find(expect.begin(), expect.end(), "tick"));
        EXPECT_EQ(shape, expect) << "thread " << tid;
        // Ticks are deltas: they add up to no more than the total.
        if (ticks_sum.count(tid)) {
            for (size_t k = 0; k < 2; ++k)
                EXPECT_LE(ticks_sum[tid][k], fini[tid][k]) << "thread " << tid;
        }
    }
    for (size_t i = 0; i < threads.size(); ++i) {
        const ThreadReport &t = threads[i];
        ASSERT_EQ(fini.count(t.tid), 1u) << "no fini_lwp line for thread " << t.tid;
        const std::vector<long long> &v = fini[t.tid];
        // As in the libpctx test of the same program: the counters run from
        // the thread's first instruction to its exit, getrusage up to the
        // call just before; a few faults and switches apart.
        EXPECT_GE(v[0], 1000 * long(i + 1)) << "thread " << i;
        EXPECT_NEAR(double(v[0]), double(t.minflt), 8) << "page faults of thread " << i;
        EXPECT_GE(v[1], 200) << "context switches of thread " << i;
        EXPECT_NEAR(double(v[1]), double(t.nvcsw + t.nivcsw), 3)
            << "context switches of thread " << i;
    }
}

TEST(Cputrack, TicksAtEachIntervalAndExitWithTotals) {
    SKIP_WITHOUT_PTRACE();
    // Two threads that sleep 700 ms; samples every 0.2 s.
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r =
        run({"-o", dir + "/out", "-T", "0.2", "-c", "page-faults,task-clock", PCTX_SLEEPER, "700"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "ready\n") << "the program's own output, and only that, on stdout";
    std::string text = read_file(dir + "/out");
    std::vector<std::string> ls = split_lines(text);
    ASSERT_GE(ls.size(), 2u);
    EXPECT_EQ(ls[0], header({"pic0", "pic1"}, {}));
    std::vector<Line> lines = body(text, 1, {});
    ASSERT_EQ(lines.size(), 9u) << text;
    long main_tid = lines.back().lwp;
    long other = lines[0].lwp;
    std::map<long, std::string> names = {{main_tid, "M"}, {other, "T"}};
    // The second thread's creation, three rounds of both threads at 0.2,
    // 0.4 and 0.6 s (in thread ID order), its end, and the exit.
    std::string round = main_tid < other ? "M tick n n\nT tick n n\n" : "T tick n n\nM tick n n\n";
    EXPECT_EQ(masked_text(lines, {}, names),
              "T lwp_create n n\n" + round + round + round + "T lwp_exit n n\nM exit n n\n");
    for (size_t i = 1; i <= 6; ++i) {
        size_t tick = (i + 1) / 2; // lines 1-2 are round 1, 3-4 round 2, 5-6 round 3
        EXPECT_NEAR(lines[i].time, 0.2 * double(tick), 0.1) << ls[i + 1];
    }
    EXPECT_NEAR(lines[8].time, 0.7, 0.15);
    // Deltas: the first tick has the start-up faults, later ones hardly any.
    const Line &first = lines[1].lwp == main_tid ? lines[1] : lines[2];
    const Line &last = lines[5].lwp == main_tid ? lines[5] : lines[6];
    EXPECT_GT(first.values[0], 10);
    EXPECT_LT(last.values[0], first.values[0]);
    // The exit totals are at least the ticks' sum (the rest is after the
    // last tick), and the thread's lwp_exit at least its own.
    for (size_t k = 0; k < 2; ++k) {
        long long all = 0, its = 0;
        for (size_t i = 1; i <= 6; ++i) {
            all += lines[i].values[k];
            its += lines[i].lwp == other ? lines[i].values[k] : 0;
        }
        EXPECT_GE(lines[8].values[k], all);
        EXPECT_GE(lines[7].values[k], its);
        EXPECT_GE(lines[8].values[k], lines[7].values[k]);
    }
}

TEST(Cputrack, IntervalZeroSamplesOnlyAtEvents) {
    SKIP_WITHOUT_PTRACE();
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r = run({"-n", "-o", dir + "/out", "-T", "0", "-c", "page-faults", PCTX_SLEEPER, "400"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = read_file(dir + "/out");
    std::vector<Line> lines = body(text, 0, {});
    ASSERT_EQ(lines.size(), 3u) << text;
    EXPECT_EQ(masked_text(lines, {}, {{lines[2].lwp, "M"}, {lines[0].lwp, "T"}}),
              "T lwp_create n\nT lwp_exit n\nM exit n\n");
    EXPECT_GT(lines[2].values[0], 10);
}

TEST(Cputrack, CountStopsTrackingAndLetsTheProgramRun) {
    SKIP_WITHOUT_PTRACE();
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r = run({"-n", "-o", dir + "/out", "-T", "0.1", "-N", "2", "-c", "page-faults",
                    PCTX_SLEEPER, "8000"});
    ASSERT_EQ(r.status, 0) << r.err;
    // The program sleeps 8 s: room for a busy machine before the 0.2 s of
    // ticks could be mistaken for waiting.
    EXPECT_LT(r.seconds, 6.0) << "cputrack waited for the program";
    std::string text = read_file(dir + "/out");
    std::vector<Line> lines = body(text, 0, {});
    // The second thread's creation, two rounds of two threads, no exit.
    ASSERT_EQ(lines.size(), 5u) << text;
    EXPECT_EQ(lines[0].label, "lwp_create");
    std::set<long> lwps;
    for (size_t i = 1; i < lines.size(); ++i) {
        EXPECT_EQ(lines[i].label, "tick");
        lwps.insert(lines[i].lwp);
    }
    ASSERT_EQ(lwps.size(), 2u);
    lwps.erase(lines[0].lwp);
    // The main thread's lwp is the pid: the program runs on, untraced.
    pid_t pid = pid_t(*lwps.begin());
    EXPECT_EQ(kill(pid, 0), 0) << "the program was killed";
    EXPECT_EQ(tracer_of(pid), 0);
}

TEST(Cputrack, NoHeaderAndTsc) {
    SKIP_WITHOUT_PTRACE();
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r = run({"-n", "-t", "-o", dir + "/out", "-T", "0.2", "-c",
                    "pic1=page-faults,pic0=task-clock", PCTX_SLEEPER, "300"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = read_file(dir + "/out");
    std::vector<Line> lines = body(text, 0, {.tsc = true});
    ASSERT_FALSE(lines.empty()) << text;
    for (const Line &l : lines) {
        ASSERT_EQ(l.values.size(), 3u);
        if (l.label == "tick" || l.label == "exit") { // not at a thread's creation
            EXPECT_GT(l.values[0], 0) << "tsc";
        }
    }
    // The main thread's exit: its task-clock (pic0, third column) and tsc
    // both count its time on a CPU.
    EXPECT_EQ(lines.back().label, "exit");
    EXPECT_GT(lines.back().values[2], 0);

    r = run({"-t", "-o", dir + "/out", "-T", "0", "-c", "pic1=page-faults,pic0=task-clock",
             PCTX_SLEEPER, "100"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(split_lines(read_file(dir + "/out"))[0], header({"pic1", "pic0"}, {.tsc = true}));
}

TEST(Cputrack, SeveralSetsTakeTurnsPerThreadAtEachTick) {
    SKIP_WITHOUT_PTRACE();
    std::vector<std::string> specs = {"page-faults", "task-clock,context-switches,sys"};
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r = run(
        {"-o", dir + "/out", "-T", "0.15", "-c", specs[0], "-c", specs[1], PCTX_SLEEPER, "700"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string text = read_file(dir + "/out");
    std::vector<std::string> ls = split_lines(text);
    ASSERT_GE(ls.size(), 3u);
    EXPECT_EQ(ls[0], header({"pic0"}, {}, specs[0]));
    EXPECT_EQ(ls[1], header({"pic0", "pic1"}, {}, specs[1]));
    std::vector<Line> lines = body(text, 2, {});
    std::map<long, size_t> turn;
    std::vector<std::vector<long long>> tick_sums = {{0}, {0, 0}};
    std::vector<const Line *> exits;
    for (const Line &l : lines) {
        ASSERT_TRUE(l.has_comment) << "every line names its set";
        size_t s = l.comment == specs[0] ? 0 : 1;
        EXPECT_EQ(l.comment, specs[s]);
        EXPECT_EQ(l.values.size(), s == 0 ? 1u : 2u);
        if (l.label == "tick") {
            EXPECT_EQ(s, turn[l.lwp] % 2) << "thread " << l.lwp << ": sets in turn";
            ++turn[l.lwp];
            for (size_t k = 0; k < l.values.size(); ++k)
                tick_sums[s][k] += l.values[k];
        } else if (l.label == "exit") {
            exits.push_back(&l);
        } else if (l.label == "lwp_create") {
            EXPECT_EQ(s, 0u) << "a new thread starts with the first set";
        } else {
            EXPECT_EQ(l.label, "lwp_exit");
        }
    }
    EXPECT_EQ(turn.size(), 2u);
    for (const auto &[tid, n] : turn)
        EXPECT_GE(n, 4u) << "thread " << tid;
    // One exit line per set, in order, each at least its ticks' sum.
    ASSERT_EQ(exits.size(), 2u) << text;
    EXPECT_EQ(exits[0]->comment, specs[0]);
    EXPECT_EQ(exits[1]->comment, specs[1]);
    for (size_t s = 0; s < 2; ++s)
        for (size_t k = 0; k < exits[s]->values.size(); ++k)
            EXPECT_GE(exits[s]->values[k], tick_sums[s][k]);
    // A turn of task-clock is a thread's CPU time in 0.15 s: well under it.
    EXPECT_LT(tick_sums[1][0], 150000000LL * 4);
}

// ---- hardware ----

TEST(Cputrack, GenericHardwareEventCountsInstructions) {
    SKIP_WITHOUT_PTRACE();
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    bool hw = cpcprof::tools::has_hardware_pmu(cpc);
    cpc_close(cpc);
    if (!hw)
        GTEST_SKIP() << "this machine has no hardware performance counters (PAPI_tot_ins)";
    Result r = run({"-n", "-T", "0", "-c", "PAPI_tot_ins", PCTX_EXEC, "chain", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 1u) << r.out;
    EXPECT_EQ(lines[0].label, "exit");
    EXPECT_GT(lines[0].values[0], 100000);
}

} // namespace
