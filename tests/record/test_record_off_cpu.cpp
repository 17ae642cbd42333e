// SPDX-License-Identifier: MIT
// `cpcprof record --off-cpu` on both capture paths (the agent, and the
// kernel's rings): the bundled waiter (targets/waiter.c) times its own
// waits, and the profile is held to them: each waiting function's off-CPU
// time within 5 % of what it measured, the waits under the threshold
// counted one by one into their sums, no blocked time for a thread that
// never blocks, and each waiting thread's on- and off-CPU time adding up
// to its wall time within 2 %.
#include "tests/record/record_harness.h"

#include "profiler/analysis/query.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;
namespace analysis = cpcprof::analysis;

namespace {

struct Truth {
    std::map<std::string, double> wait_s;                    // per waiting function
    std::map<std::string, int> tid;                          // per thread name
    std::map<std::string, double> wall_s;                    // per thread name
    std::map<std::string, std::pair<int64_t, int64_t>> span; // CLOCK_MONOTONIC
};

Truth parse_truth(const std::string &out) {
    Truth t;
    std::istringstream in(out);
    std::string word;
    while (in >> word) {
        if (word == "wait") {
            std::string fn;
            double s = 0;
            int count = 0;
            in >> fn >> s >> count;
            t.wait_s[fn] = s;
        } else if (word == "thread") {
            std::string name;
            int tid = 0;
            double wall = 0;
            long long start = 0, end = 0;
            in >> name >> tid >> wall >> start >> end;
            t.tid[name] = tid;
            t.wall_s[name] = wall;
            t.span[name] = {start, end};
        }
    }
    return t;
}

struct OffCpuRecording : ::testing::TestWithParam<const char *> {
    TempDir dir;
};

TEST_P(OffCpuRecording, WaitsAreTimedWhereTheThreadsBlocked) {
    RunResult r = run_cpcprof(
        dir,
        {"record", "--off-cpu", "--capture", GetParam(), "-o", "out.cpcprof", "--", WAITER_EXE},
        120);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("cpcprof: off the CPU "), std::string::npos) << r.err;
    const Truth truth = parse_truth(r.out);
    ASSERT_EQ(truth.wait_s.size(), 4u) << r.out;
    ASSERT_EQ(truth.tid.size(), 5u) << r.out;

    std::string error;
    auto q = analysis::Query::open(dir.file("out.cpcprof"), {}, &error);
    ASSERT_TRUE(q) << error;
    const int off = q->off_cpu_event();
    ASSERT_GE(off, 0);
    // Where the time went, for a failure's message.
    std::string where;
    for (size_t f = 0; f < q->functions().size(); ++f)
        if (uint64_t ns = q->function_self()[f].values[size_t(off)]; ns > 1'000'000)
            where += "\n  " + q->functions()[f].name + " " + std::to_string(ns / 1000) + " us";
    // Each waiting function's time off the CPU, against its own clock.
    // The program's clock also runs while its thread, woken, is taken off
    // the CPU before the call returns (beside busy CPUs): that is time
    // waiting for a CPU, without a stack, so the thread's preempted time
    // in its function's span is allowed below the mark; so is a stretch
    // whose stack the recorder, held up beside busy CPUs, could not read
    // while it lasted ([blocked, stack not read]: timed, place unknown).
    const std::map<std::string, std::string> thread_of = {
        {"wait_sleeping", "waiter"}, {"wait_mutex", "locker"}, {"wait_pipe", "reader"}};
    for (const auto &[fn, thread] : thread_of) {
        std::vector<uint32_t> ids = q->find_functions(fn);
        ASSERT_EQ(ids.size(), 1u) << fn << " is not in the profile";
        const double profiled = double(q->function_total()[ids[0]].values[size_t(off)]) / 1e9;
        const double measured = truth.wait_s.at(fn);
        const auto [start, end] = truth.span.at(thread);
        double preempted = 0;
        for (const storage::OffCpuRecord &o : q->reader().off_cpu())
            if (o.tid == truth.tid.at(thread) &&
                (o.preempted || (o.stack == 0 && o.stretches == 1)))
                preempted +=
                    double(std::max<int64_t>(0, std::min(o.time_ns + int64_t(o.duration_ns), end) -
                                                    std::max(o.time_ns, start))) /
                    1e9;
        EXPECT_LT(profiled, 1.05 * measured)
            << fn << ": " << profiled << " s off the CPU in the profile, " << measured
            << " s by the program's clock; off the CPU, by innermost function:" << where;
        EXPECT_GT(profiled, 0.95 * measured - preempted)
            << fn << ": " << profiled << " s off the CPU in the profile, " << measured
            << " s by the program's clock, its thread preempted or not read " << preempted
            << " s; off the CPU, by innermost function:" << where;
    }

    // Where the kernel samples the stack at each switch (the agent's path
    // where the user may profile the kernel: root here), the short waits
    // are where they waited too, as perf's sched_switch tracepoint says.
    if (r.err.find("(the kernel's stack at each switch)") != std::string::npos) {
        std::vector<uint32_t> ids = q->find_functions("wait_short");
        ASSERT_EQ(ids.size(), 1u) << "the short waits have no stack:" << where;
        const double profiled = double(q->function_total()[ids[0]].values[size_t(off)]) / 1e9;
        const double measured = truth.wait_s.at("wait_short");
        // Each 20 us sleep's own system call runs on the CPU around the
        // wait (perf's sched_switch puts 83 % of the time the program
        // timed off the CPU here), and beside busy CPUs the thread may be
        // preempted in it (time waiting for a CPU, without a stack).
        const auto [start, end] = truth.span.at("shorty");
        double preempted = 0;
        for (const storage::OffCpuRecord &o : q->reader().off_cpu())
            if (o.tid == truth.tid.at("shorty") && o.preempted)
                preempted +=
                    double(std::max<int64_t>(0, std::min(o.time_ns + int64_t(o.duration_ns), end) -
                                                    std::max(o.time_ns, start))) /
                    1e9;
        EXPECT_GT(profiled, 0.75 * measured - preempted)
            << "wait_short: " << profiled << " s off the CPU in the profile, " << measured
            << " s by the program's clock, preempted " << preempted << " s";
        EXPECT_LT(profiled, 1.05 * measured)
            << "wait_short: " << profiled << " s off the CPU in the profile, " << measured
            << " s by the program's clock; by innermost function:" << where;
    } else {
        std::printf("not checked: the short waits' stacks (%s path; the kernel's stack at each "
                    "switch is taken on the agent's path where the user may profile the "
                    "kernel: root, or perf_event_paranoid 1 or less)\n",
                    GetParam());
    }

    // Per thread, from the stored rows: the short waits counted, the
    // spinner never blocked.
    const storage::Reader &reader = q->reader();
    std::map<int, uint64_t> stretches, summed, blocked_ns, off_ns;
    for (const storage::OffCpuRecord &o : reader.off_cpu()) {
        stretches[o.tid] += o.stretches;
        if (!o.preempted) {
            blocked_ns[o.tid] += o.duration_ns;
            summed[o.tid] += o.stretches > 1 ? o.stretches : 0;
        }
        off_ns[o.tid] += o.duration_ns;
    }
    // Every waiting thread is one of the program's: the agent's own
    // (cpcprof-drain, never in the file's threads) waits unrecorded.
    std::set<int> known;
    for (const auto &[name, tid] : truth.tid)
        known.insert(tid);
    for (const auto &[tid, ns] : off_ns)
        EXPECT_EQ(known.count(tid), 1u)
            << "off the CPU " << ns / 1000 << " us in thread " << tid << ", none of the program's";
    const int shorty = truth.tid.at("shorty"), spinner = truth.tid.at("spinner");
    // Each of the 2000 short sleeps is a stretch, but for the few whose
    // timer fired before the thread could go to sleep (it never left the
    // CPU, or it was preempted there): up to 15 of them beside two CPU
    // hogs (1985 seen), so 2 % is allowed.
    // Unless the recorder said the kernel lost switch records (its ring
    // full while the reader was held up: beside busy CPUs, with the
    // kernel's 16 KiB stack copy at each switch, as perf loses chunks).
    const size_t lost = r.err.find("records of the threads' switches (its ring was full)");
    if (lost == std::string::npos) {
        EXPECT_GE(stretches[shorty], 1960u) << "the 2000 short waits are counted\n" << r.err;
        EXPECT_GE(summed[shorty], 1900u) << "short waits are summed, not kept one by one";
    } else {
        std::printf("not checked: the count of the short waits (%llu stretches): the recorder "
                    "said the kernel lost switch records\n",
                    static_cast<unsigned long long>(stretches[shorty]));
    }
    // Blocked only as any thread may be (a page read from the disk): under
    // 3 % of its function's run (a new thread's first wait, before its
    // function, is not the function's).
    {
        const auto [start, end] = truth.span.at("spinner");
        uint64_t blocked_in_run = 0;
        for (const storage::OffCpuRecord &o : reader.off_cpu()) {
            const int64_t from = std::max(o.time_ns, start);
            const int64_t to = std::min(o.time_ns + int64_t(o.duration_ns), end);
            if (o.tid == spinner && !o.preempted && to > from)
                blocked_in_run += uint64_t(to - from);
        }
        EXPECT_LT(double(blocked_in_run) / 1e9, 0.03 * truth.wall_s.at("spinner"))
            << "the spinner never blocks; blocked " << double(blocked_ns[spinner]) / 1e6
            << " ms in all, preempted " << double(off_ns[spinner] - blocked_ns[spinner]) / 1e6
            << " ms; off the CPU, by innermost function:" << where;
    }

    // A waiting thread's time on and off the CPU is its wall time, from
    // the start of its function to its end (the stretches clipped to that:
    // a new thread waits for a CPU before, and ends after).
    const uint64_t period = reader.run().events[0].period;
    for (const char *name : {"locker", "reader"}) {
        const int tid = truth.tid.at(name);
        const auto [start, end] = truth.span.at(name);
        uint64_t on_ns = 0, within_ns = 0;
        for (const analysis::Query::ThreadCost &t : q->threads())
            if (t.tid == tid)
                on_ns = t.cost.samples * period;
        for (const storage::OffCpuRecord &o : reader.off_cpu()) {
            const int64_t from = std::max(o.time_ns, start);
            const int64_t to = std::min(o.time_ns + int64_t(o.duration_ns), end);
            if (o.tid == tid && to > from)
                within_ns += uint64_t(to - from);
        }
        const double sum = double(on_ns + within_ns) / 1e9, wall = truth.wall_s.at(name);
        EXPECT_NEAR(sum, wall, 0.02 * wall)
            << name << ": on the CPU " << double(on_ns) / 1e9 << " s, off " << within_ns / 1e9
            << " s, wall " << wall << " s";
        // What report --event wall-clock --by thread says: the same, with
        // the thread's waits for a CPU before its function and after
        // (beside busy CPUs a new thread may wait a scheduler slice or
        // two: 10 ms).
        const int wall_event = q->wall_clock_event();
        ASSERT_GE(wall_event, 0);
        for (const analysis::Query::ThreadCost &t : q->threads())
            if (t.tid == tid) {
                const double reported = double(t.cost.values[size_t(wall_event)]) / 1e9;
                EXPECT_NEAR(reported, wall, 0.05 * wall + 0.010)
                    << name << ": wall-clock " << reported << " s, wall " << wall << " s";
            }
    }
}

// A fork and exec are followed: the waiter started by spawn_child (a
// fork child that execs it, waited for by its parent) has its waits
// timed in its own process, and the parent's wait for it is the parent's.
TEST_P(OffCpuRecording, AForkedAndExecedChildsWaitsAreItsOwn) {
    RunResult r = run_cpcprof(dir,
                              {"record", "--off-cpu", "--capture", GetParam(), "-o", "out.cpcprof",
                               "--", SPAWN_CHILD_EXE, WAITER_EXE},
                              120);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("child exited 0"), std::string::npos) << r.out;
    const Truth truth = parse_truth(r.out);
    ASSERT_EQ(truth.wait_s.size(), 4u) << r.out;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *parent = process_running(p, "record_spawn_child");
    const storage::ProcessRecord *child = process_running(p, "record_waiter");
    ASSERT_NE(parent, nullptr);
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->info.ppid, parent->info.pid);

    std::string error;
    analysis::QueryFilter only_child;
    only_child.pid = child->info.pid;
    auto q = analysis::Query::open(dir.file("out.cpcprof"), only_child, &error);
    ASSERT_TRUE(q) << error;
    const int off = q->off_cpu_event();
    ASSERT_GE(off, 0);
    // Each waiting function is the child's, and all of its waiting time
    // is there (how much of it each function's stack holds is the test
    // above's: here the reads of the second process make the ring path's
    // late reads likelier beside busy CPUs).
    double blocked = 0, measured = 0;
    for (size_t f = 0; f < q->functions().size(); ++f)
        if (q->functions()[f].name != "[waiting for a CPU]")
            blocked += double(q->function_self()[f].values[size_t(off)]) / 1e9;
    for (const char *fn : {"wait_sleeping", "wait_mutex", "wait_pipe"}) {
        std::vector<uint32_t> ids = q->find_functions(fn);
        ASSERT_EQ(ids.size(), 1u) << fn << " is not in the child's profile";
        EXPECT_GT(q->function_total()[ids[0]].values[size_t(off)], 0u) << fn;
        measured += truth.wait_s.at(fn);
    }
    EXPECT_GT(blocked, 0.95 * measured)
        << "the child blocked " << blocked << " s; its three waiting functions timed " << measured
        << " s";
    // The parent waits for the child's whole run, off the CPU.
    analysis::QueryFilter only_parent;
    only_parent.pid = parent->info.pid;
    auto qp = analysis::Query::open(dir.file("out.cpcprof"), only_parent, &error);
    ASSERT_TRUE(qp) << error;
    for (const char *fn : {"wait_sleeping", "wait_mutex", "wait_pipe"})
        EXPECT_TRUE(qp->find_functions(fn).empty()) << fn << " is in the parent's profile";
    const double parent_off = double(qp->total().values[size_t(off)]) / 1e9;
    const double child_wall = truth.wall_s.at("waiter");
    EXPECT_GT(parent_off, 0.9 * child_wall)
        << "the parent waited " << parent_off << " s off the CPU for a child that ran "
        << child_wall << " s";
    // None of the child's waits counts for the parent too: the parent (one
    // thread) is off the CPU for at most its own life.  (Its life, not the
    // child's main(): beside busy CPUs the child's exec and start, and the
    // parent's waits for a CPU, add much that main() does not time.)
    ASSERT_TRUE(parent->end_ns.has_value());
    const double parent_life = double(*parent->end_ns - parent->info.start_ns) / 1e9;
    EXPECT_LT(parent_off, parent_life + 0.05)
        << "the parent was off the CPU " << parent_off << " s in a life of " << parent_life << " s";
}

// A program that switches tens of thousands of times a second (the
// bench's two threads handing a byte through pipes) is told, on the
// agent's path, that the agent's counters of each thread's own cost every
// switch, and that the rings cost less; the rings' recording is not.
TEST_P(OffCpuRecording, ASwitchHeavyProgramIsToldWhatEachSwitchCostsIt) {
    const bool agent = std::string(GetParam()) == "agent";
    RunResult r = run_cpcprof(dir,
                              {"record", "--off-cpu", "--capture", GetParam(), "-o", "out.cpcprof",
                               "--", SWITCHER_EXE, "30000"},
                              120);
    ASSERT_EQ(r.status, 0) << r.err;
    double seconds = 0;
    unsigned long long stretches = 0;
    size_t at = r.err.find("cpcprof: recorded ");
    ASSERT_NE(at, std::string::npos) << r.err;
    seconds = std::atof(r.err.c_str() + at + std::strlen("cpcprof: recorded "));
    at = r.err.find(" s in ", r.err.find("cpcprof: off the CPU "));
    ASSERT_NE(at, std::string::npos) << r.err;
    stretches = std::strtoull(r.err.c_str() + at + std::strlen(" s in "), nullptr, 10);
    ASSERT_GT(seconds, 0) << r.err;
    const double rate = double(stretches) / seconds;
    const bool told = r.err.find("times a second, and the profiler's counters in the program, "
                                 "each thread's own, cost every switch") != std::string::npos;
    if (!agent) {
        EXPECT_FALSE(told) << r.err;
        return;
    }
    if (rate < 10000)
        GTEST_SKIP() << "the switcher switched " << rate
                     << " times a second here (a busy machine slows its hand-overs): the "
                        "advice is for 10,000 and more";
    EXPECT_TRUE(told) << rate << " switches a second:\n" << r.err;
    EXPECT_NE(r.err.find("--capture ring costs a fraction of that"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Capture, OffCpuRecording, ::testing::Values("agent", "ring"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.param);
                         });

} // namespace
