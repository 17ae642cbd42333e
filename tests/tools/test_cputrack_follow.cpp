// SPDX-License-Identifier: MIT
// cputrack(1) following processes: fork lines, children followed with -f,
// exec with -e, SIGINT to the controllers, and attaching to a running
// process with -p (detached on SIGINT, after -N samples, or at its exit).
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

// ---- fork and exec ----

TEST(Cputrack, ForkLineWithoutFollowing) {
    SKIP_WITHOUT_PTRACE();
    TempDir tmp("test_cputrack");
    std::string dir = tmp.path();
    Result r = run({"-T", "0", "-c", "page-faults", PCTX_EXEC, "fork-true", dir + "/child"});
    ASSERT_EQ(r.status, 0) << r.err;
    long child = std::atol(read_file(dir + "/child").c_str());
    std::vector<std::string> ls = split_lines(r.out);
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls[0], header({"pic0"}, {}));
    std::vector<Line> lines = body(r.out, 1, {});
    ASSERT_FALSE(lines.empty());
    long parent = lines[0].lwp;
    EXPECT_EQ(masked_text(lines, {}, {{parent, "P"}, {child, "C"}}), "P fork - # C\n"
                                                                     "P exit n\n");
}

TEST(Cputrack, ForkFollowedWithPidColumn) {
    SKIP_WITHOUT_PTRACE();
    for (const char *mode : {"fork-true", "vfork-true"}) {
        SCOPED_TRACE(mode);
        TempDir tmp("test_cputrack");
        std::string dir = tmp.path();
        // Without -e, the child is tracked up to its exec of /bin/true.
        Result r = run({"-f", "-T", "0", "-c", "page-faults", PCTX_EXEC, mode, dir + "/child"});
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        long child = std::atol(read_file(dir + "/child").c_str());
        Cols c{.pid = true};
        std::vector<std::string> ls = split_lines(r.out);
        ASSERT_FALSE(ls.empty());
        EXPECT_EQ(ls[0], header({"pic0"}, c));
        std::vector<Line> lines = body(r.out, 1, c);
        ASSERT_FALSE(lines.empty());
        long parent = lines[0].pid;
        std::map<long, std::string> names = {{parent, "P"}, {child, "C"}};
        EXPECT_EQ(masked_text(lines, c, names), "P P fork - # C\n"
                                                "C C exec n\n"
                                                "C C exec - # 'true'\n"
                                                "P P exit n\n");

        // With -e and -v: the child's new image too, and every thread's
        // init_lwp and fini_lwp.
        r = run({"-fev", "-T", "0", "-c", "page-faults", PCTX_EXEC, mode, dir + "/child"});
        ASSERT_EQ(r.status, 0) << r.err;
        child = std::atol(read_file(dir + "/child").c_str());
        lines = body(r.out, 1, c);
        ASSERT_FALSE(lines.empty());
        parent = lines[0].pid;
        names = {{parent, "P"}, {child, "C"}};
        // Each controlling process prints its own process's lines in order;
        // the child's exit is reported once it is gone, when its parent
        // may be ending too: only the child's last line may come late.
        std::vector<Line> of_parent, of_child;
        for (const Line &l : lines)
            (l.pid == child ? of_child : of_parent).push_back(l);
        EXPECT_EQ(masked_text(of_parent, c, names), "P P init_lwp n\n"
                                                    "P P fork - # C\n"
                                                    "P P fini_lwp n\n"
                                                    "P P exit n\n");
        EXPECT_EQ(masked_text(of_child, c, names), "C C init_lwp n\n"
                                                   "C C fini_lwp n\n"
                                                   "C C exec n\n"
                                                   "C C exec - # 'true'\n"
                                                   "C C init_lwp n\n"
                                                   "C C fini_lwp n\n"
                                                   "C C exit n\n");
        EXPECT_EQ(masked_text(std::vector<Line>(lines.begin(), lines.begin() + 8), c, names),
                  "P P init_lwp n\n"
                  "P P fork - # C\n"
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n"
                  "C C exec n\n"
                  "C C exec - # 'true'\n"
                  "C C init_lwp n\n"
                  "C C fini_lwp n\n");
        ASSERT_EQ(of_child.size(), 7u);
        ASSERT_EQ(of_parent.size(), 4u);
        // Each image's own counts: the exec line repeats the old image's
        // fini_lwp, the exit the new one's.
        EXPECT_EQ(of_child[2].values, of_child[1].values);
        EXPECT_EQ(of_child[6].values, of_child[5].values);
        EXPECT_EQ(of_parent[3].values, of_parent[2].values);
    }
}

TEST(Cputrack, ExecFollowedWithE) {
    SKIP_WITHOUT_PTRACE();
    // "chain 2" faults in 600 pages and execs "chain 1" (400), then
    // "chain 0" (200) exits.
    Result r = run({"-n", "-e", "-T", "0", "-c", "page-faults", PCTX_EXEC, "chain", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 5u) << r.out;
    long pid = lines[0].lwp;
    EXPECT_EQ(masked_text(lines, {}, {{pid, "P"}}), "P exec n\n"
                                                    "P exec - # 'pctx_exec chain 1'\n"
                                                    "P exec n\n"
                                                    "P exec - # 'pctx_exec chain 0'\n"
                                                    "P exit n\n");
    const long long pages[] = {600, 400, 200};
    const Line *image[] = {&lines[0], &lines[2], &lines[4]};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_GE(image[i]->values[0], pages[i]) << "image " << i;
        EXPECT_LT(image[i]->values[0], pages[i] + 150) << "image " << i << ": its own faults only";
    }

    // Without -e, tracking ends at the first exec, which is not an error.
    r = run({"-n", "-T", "0", "-c", "page-faults", PCTX_EXEC, "chain", "2"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    lines = body(r.out, 0, {});
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(masked_text(lines, {}, {{lines[0].lwp, "P"}}), "P exec n\n"
                                                             "P exec - # 'pctx_exec chain 1'\n");
}

TEST(Cputrack, ControllersOfForkChildrenStopOnSigint) {
    SKIP_WITHOUT_PTRACE();
    // The shell forks sleep, which a second controlling process follows;
    // SIGINT to cputrack lets both processes go at once.
    Result r = run({"-f", "-T", "0.1", "-c", "page-faults", "/bin/sh", "-c", "sleep 8; true"}, 0.7);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LT(r.seconds, 6.0) << "a controller went on after SIGINT (the shell sleeps 8 s)";
    Cols c{.pid = true};
    std::vector<Line> lines = body(r.out, 1, c);
    std::set<long> pids;
    bool forked = false;
    for (const Line &l : lines) {
        pids.insert(l.pid);
        forked = forked || l.label == "fork";
        EXPECT_NE(l.label, "exit");
    }
    EXPECT_TRUE(forked) << r.out;
    EXPECT_EQ(pids.size(), 2u) << "ticks of the shell and of sleep\n" << r.out;
}

// ---- attaching ----

TEST(Cputrack, AttachThenDetachOnSigintLeavesItRunning) {
    SKIP_WITHOUT_PTRACE();
    Spawned target({PCTX_SLEEPER, "2500"});
    ASSERT_EQ(target.line(), "ready");
    double t0 = now_s();
    Result r =
        run({"-T", "0.2", "-c", "page-faults,task-clock", "-p", std::to_string(target.pid)}, 1.0);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<Line> lines = body(r.out, 1, {});
    std::set<long> lwps;
    for (const Line &l : lines) {
        EXPECT_EQ(l.label, "tick");
        lwps.insert(l.lwp);
    }
    EXPECT_EQ(lwps.size(), 2u) << r.out;
    EXPECT_TRUE(lwps.count(target.pid)) << "the main thread's lwp is the pid";
    EXPECT_GE(lines.size(), 6u) << r.out;
    EXPECT_EQ(tracer_of(target.pid), 0) << "still traced after cputrack ended";
    int st = target.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
    EXPECT_GT(now_s() - t0, 2.0) << "the program ended early";
}

TEST(Cputrack, AttachWithCountDetachesAfterItsSamples) {
    SKIP_WITHOUT_PTRACE();
    // The program sleeps 4 s: cputrack, done after 0.4 s, has room on a
    // busy machine before it could be mistaken for waiting.
    Spawned target({PCTX_SLEEPER, "4000"});
    ASSERT_EQ(target.line(), "ready");
    Result r =
        run({"-n", "-N", "2", "-T", "0.2", "-c", "page-faults", "-p", std::to_string(target.pid)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_LT(r.seconds, 3.0) << "cputrack waited for the program";
    std::vector<Line> lines = body(r.out, 0, {});
    EXPECT_EQ(lines.size(), 4u) << r.out;
    EXPECT_EQ(kill(target.pid, 0), 0) << "the program was killed";
    EXPECT_EQ(tracer_of(target.pid), 0);
    int st = target.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "status " << st;
}

TEST(Cputrack, AttachedUntilItExits) {
    SKIP_WITHOUT_PTRACE();
    Spawned target({PCTX_SLEEPER, "600"});
    ASSERT_EQ(target.line(), "ready");
    Result r = run({"-n", "-v", "-T", "0", "-c", "page-faults", "-p", std::to_string(target.pid)});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<Line> lines = body(r.out, 0, {});
    ASSERT_FALSE(lines.empty());
    long other = -1;
    for (const Line &l : lines)
        if (l.lwp != target.pid)
            other = l.lwp;
    std::map<long, std::string> names = {{target.pid, "M"}, {other, "T"}};
    // Both threads are found at the capture; which ends first varies.
    std::string text = masked_text(lines, {}, names);
    EXPECT_TRUE(text == "M init_lwp n\nT init_lwp n\nT fini_lwp n\nT lwp_exit n\n"
                        "M fini_lwp n\nM exit n\n" ||
                text == "T init_lwp n\nM init_lwp n\nT fini_lwp n\nT lwp_exit n\n"
                        "M fini_lwp n\nM exit n\n" ||
                text == "M init_lwp n\nT init_lwp n\nM fini_lwp n\nT fini_lwp n\nM exit n\n" ||
                text == "M init_lwp n\nT init_lwp n\nT fini_lwp n\nM fini_lwp n\nM exit n\n")
        << text;
}

} // namespace
