// SPDX-License-Identifier: MIT
// libpctx: pctx_create, pctx_capture, pctx_run, pctx_release, pctx_terminate,
// exec and fork following, with the target programs of tests/targets.
#include "tests/libcpc/pctx_helpers.h"

using namespace pctxtest;

namespace {

// ---- pctx_create, pctx_run, pctx_release ----

TEST(Pctx, CreatedProgramRunsToItsExitAndReportsTheStatus) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({PCTX_EXEC, "exit", "7"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    std::vector<std::string> want = {"init " + std::to_string(pid), "fini " + std::to_string(pid),
                                     "exit " + std::to_string(7 << 8)};
    EXPECT_EQ(t.events, want);
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "the ended process was left unreaped";
}

TEST(Pctx, MissingProgramIsReportedThroughErrfn) {
    pctx_t *p = create({"no-such-program-for-pctx"});
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(errno, ENOENT);
    ASSERT_EQ(PctxErrors::fns.size(), 1u);
    EXPECT_EQ(PctxErrors::fns[0], "create");
    EXPECT_TRUE(PctxErrors::said("cannot find program 'no-such-program-for-pctx'"))
        << PctxErrors::all();
}

TEST(Pctx, ProgramIsFoundInPath) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({"true"}, &t); // /usr/bin/true through PATH
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    EXPECT_EQ(t.count("exit 0"), 1);
}

TEST(Pctx, ReleaseBeforeRunLetsTheCreatedProcessRun) {
    SKIP_WITHOUT_PTRACE();
    // illumos pctx_release (Prelease with PRELEASE_CLEAR) sets a created
    // process running rather than killing it.
    pctx_t *p = create({PCTX_EXEC, "exit", "5"});
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    pctx_release(p);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 5) << std::hex << st;
}

TEST(Pctx, FailingCallbackLetsTheProcessGo) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    t.init_result = -1;
    pctx_t *p = create({PCTX_EXEC, "exit", "3"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), -1);
    EXPECT_EQ(tracer_of(pid), 0) << "still traced after pctx_run returned";
    pctx_release(p);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 3) << std::hex << st;
    EXPECT_EQ(t.count("exit"), 0);
}

TEST(Pctx, TerminateFromATickEndsRunAndTheProcessGoesOn) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({PCTX_SLEEPER, "500"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.terminate_at_tick = p;
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 20, 0, Trace::tick), 0);
    EXPECT_GE(t.ticks, 1);
    pctx_release(p);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << std::hex << st;
}

TEST(Pctx, NsamplesLimitsTheTicks) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({PCTX_SLEEPER, "2000"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.watch(p);
    int64_t t0 = now_ms();
    EXPECT_EQ(pctx_run(p, 20, 5, Trace::tick), 0);
    int64_t took = now_ms() - t0;
    pctx_release(p);
    // Two threads, five rounds; a goal that passes while a round is late
    // (a busy machine) is skipped and counted against the five, never
    // doubled, but for the last.  Replayed on the rounds' times - goals
    // every 20 ms from before the call, each round ending when the next
    // began - the ticker skips at least as many goals as it did in the
    // run: it must have used up its five by the last round.
    ASSERT_EQ(t.ticks % 2, 0) << "rounds of both threads";
    int rounds = t.ticks / 2;
    int64_t left = 5;
    std::string times;
    for (int64_t i = 0, goal = t0 + 20; i < rounds && left > 0; ++i) {
        int64_t end = i + 1 < rounds ? t.tick_ms[size_t(2 * i + 2)] : t0 + took;
        times += std::to_string(t.tick_ms[size_t(2 * i)] - t0) + " ms, ";
        goal += 20;
        for (; end >= goal; goal += 20)
            left -= left > 1;
        --left;
    }
    EXPECT_EQ(left, 0) << "rounds missing: " << rounds << " rounds, begun at " << times
                       << "the run took " << took << " ms";
    EXPECT_LE(rounds, 5);
    EXPECT_GE(took, 60);
    EXPECT_LT(took, 1500) << "pctx_run went on after its samples";
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

// Sends signals to the controlled process from its ticks.
struct Signaller : Trace {
    pid_t pid = 0;
    std::vector<std::pair<int, int>> at; // (tick round, signal)
    std::string state_while_stopped;
    static int tick(pctx_t *, pid_t pid, id_t lwp, void *a) {
        auto *s = static_cast<Signaller *>(a);
        if (lwp != static_cast<id_t>(pid))
            return 0; // one round per tick: the main thread's
        int round = ++s->ticks;
        for (auto [when, sig] : s->at) {
            if (when == round) {
                if (sig == SIGCONT) {
                    std::string st = read_file("/proc/" + std::to_string(pid) + "/stat");
                    size_t paren = st.rfind(')');
                    s->state_while_stopped =
                        paren != std::string::npos ? st.substr(paren + 2, 1) : "?";
                }
                kill(pid, sig);
            }
        }
        return 0;
    }
};

TEST(Pctx, AKilledProcessEndsTheRunWithItsSignal) {
    SKIP_WITHOUT_PTRACE();
    Signaller s;
    s.at = {{3, SIGKILL}};
    pctx_t *p = create({PCTX_SLEEPER, "5000"}, &s);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    s.watch(p);
    int64_t t0 = now_ms();
    EXPECT_EQ(pctx_run(p, 20, 0, Signaller::tick), 0);
    EXPECT_LT(now_ms() - t0, 2000);
    pctx_release(p);
    // fini_lwp for both threads (their counters are still readable), then
    // exit with the wait status of a SIGKILL.
    EXPECT_EQ(s.count("fini"), 2) << ::testing::PrintToString(s.events);
    EXPECT_EQ(s.count("exit " + std::to_string(SIGKILL)), 1) << ::testing::PrintToString(s.events);
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);
}

TEST(Pctx, JobControlStopsAreKeptAndTrackingGoesOn) {
    SKIP_WITHOUT_PTRACE();
    // illumos pctx_run gives up at a job-control stop; here the process
    // stays stopped until SIGCONT, and is followed to its end.
    Signaller s;
    s.at = {{2, SIGSTOP}, {8, SIGCONT}};
    pctx_t *p = create({PCTX_SLEEPER, "400"}, &s);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    s.watch(p);
    int64_t t0 = now_ms();
    EXPECT_EQ(pctx_run(p, 20, 0, Signaller::tick), 0);
    int64_t took = now_ms() - t0;
    pctx_release(p);
    EXPECT_EQ(s.state_while_stopped, "t") << "traced and stopped: 't' in /proc/PID/stat";
    EXPECT_EQ(s.count("exit 0"), 1) << ::testing::PrintToString(s.events);
    EXPECT_GE(took, 400);
}

TEST(Pctx, ThreadEventsComeInIllumosOrder) {
    SKIP_WITHOUT_PTRACE();
    struct Threads : Trace {
        static int create(pctx_t *, pid_t, id_t lwp, void *a) {
            of(a)->add("lwp_create " + std::to_string(lwp));
            return 0;
        }
        static int lwp_exit(pctx_t *, pid_t, id_t lwp, void *a) {
            of(a)->add("lwp_exit " + std::to_string(lwp));
            return 0;
        }
    } t;
    std::string out = temp_file();
    pctx_t *p = create({PCTX_THREADS, out, "10", "5"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.watch(p);
    pctx_set_events(p, PCTX_SYSC_LWP_CREATE_EVENT, Threads::create, PCTX_SYSC_LWP_EXIT_EVENT,
                    Threads::lwp_exit, PCTX_NULL_EVENT);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    std::string events = ::testing::PrintToString(t.events);
    ASSERT_GE(t.events.size(), 2u);
    EXPECT_EQ(t.events.front(), "init " + std::to_string(pid));
    EXPECT_EQ(t.events.back(), "exit 0");
    EXPECT_EQ(t.events[t.events.size() - 2], "fini " + std::to_string(pid));
    // Each worker: init_lwp, lwp_create, ..., fini_lwp, lwp_exit.
    std::istringstream in(read_file(out));
    unlink(out.c_str());
    pid_t tid;
    uint64_t ignored;
    int workers = 0;
    while (in >> tid >> ignored >> ignored >> ignored) {
        ++workers;
        auto at = [&](const std::string &e) {
            auto it = std::find(t.events.begin(), t.events.end(), e + " " + std::to_string(tid));
            return it == t.events.end() ? -1 : int(it - t.events.begin());
        };
        EXPECT_GE(at("init"), 0) << events;
        EXPECT_EQ(at("lwp_create"), at("init") + 1) << events;
        EXPECT_GT(at("fini"), at("lwp_create")) << events;
        EXPECT_EQ(at("lwp_exit"), at("fini") + 1) << events;
    }
    EXPECT_EQ(workers, 3);
    EXPECT_EQ(t.count("lwp_exit " + std::to_string(pid)), 0) << "the main thread ends the process";
}

TEST(Pctx, ExecFromASecondThreadReplacesEveryThread) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({PCTX_EXEC, "thread-exec", "x"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    std::string pid = std::to_string(__pctx_pid(p));
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    // Two threads of the old image end at the exec; the new image has one
    // thread, whose id is the process id again.
    std::string events = ::testing::PrintToString(t.events);
    ASSERT_EQ(t.events.size(), 8u) << events;
    EXPECT_EQ(t.events[0], "init " + pid) << events;
    EXPECT_EQ(t.count("init"), 3) << events;
    EXPECT_EQ(t.count("fini"), 3) << events;
    EXPECT_EQ(t.events[4], "exec true") << events;
    EXPECT_EQ(t.events[5], "init " + pid) << events;
    EXPECT_EQ(t.events[6], "fini " + pid) << events;
    EXPECT_EQ(t.events[7], "exit 0") << events;
}

TEST(Pctx, AMainThreadThatEndsFirstLeavesTheProcessToTheOthers) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    pctx_t *p = create({PCTX_EXEC, "main-exits", "100"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    EXPECT_EQ(t.count("init"), 2) << ::testing::PrintToString(t.events);
    EXPECT_EQ(t.count("fini"), 2) << ::testing::PrintToString(t.events);
    EXPECT_EQ(t.events.back(), "exit 0") << ::testing::PrintToString(t.events);
}

// ---- exec and fork ----

TEST(Pctx, ExecChainIsFollowedWithEachImagesOwnCounts) {
    SKIP_WITHOUT_PTRACE();
    PerLwp s;
    ASSERT_NE(s.cpc, nullptr);
    ASSERT_EQ(s.add("page-faults", CPC_COUNT_USER), 0);
    s.ready();
    pctx_t *p = create({PCTX_EXEC, "chain", "3"}, &s);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    s.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0) << PctxErrors::all();
    pctx_release(p);
    EXPECT_TRUE(s.errors.empty()) << s.errors[0];
    ASSERT_EQ(s.execs.size(), 3u);
    for (int i = 0; i < 3; ++i)
        EXPECT_NE(s.execs[i].find("pctx_exec chain " + std::to_string(2 - i)), std::string::npos)
            << s.execs[i];
    // One fini_lwp per image, counting that image only: "chain n" faults in
    // 200*(n+1) pages, plus what a program's start costs (under 300 here).
    ASSERT_EQ(s.finis.size(), 4u);
    for (int i = 0; i < 4; ++i) {
        uint64_t pages = 200 * (4 - i), faults = s.finis[i].second[0];
        EXPECT_GE(faults, pages) << "image " << i;
        EXPECT_LT(faults, pages + 300) << "image " << i << ": counts of earlier images?";
    }
}

TEST(Pctx, WithoutAnExecCallbackTrackingStopsAtExec) {
    SKIP_WITHOUT_PTRACE();
    // illumos: init_lwp or fini_lwp but no exec callback: pctx_run returns
    // 0 at the exec, and the process goes on untracked.
    Trace t;
    pctx_t *p = create({PCTX_EXEC, "chain", "2"}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    pctx_set_events(p, PCTX_INIT_LWP_EVENT, Trace::init, PCTX_FINI_LWP_EVENT, Trace::fini,
                    PCTX_NULL_EVENT);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    EXPECT_EQ(t.count("init"), 1);
    EXPECT_EQ(t.count("fini"), 1);
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << std::hex << st;
}

TEST(Pctx, ForkChildIsNotFollowedWithoutForkCallback) {
    SKIP_WITHOUT_PTRACE();
    Trace t;
    std::string out = temp_file();
    pctx_t *p = create({PCTX_EXEC, "fork-true", out}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    // The target exits 0 only if its child, untraced, exec'd /bin/true and
    // exited 0.
    EXPECT_EQ(t.count("exit 0"), 1) << ::testing::PrintToString(t.events);
    EXPECT_EQ(t.count("exec"), 0) << "the child's exec was followed";
    EXPECT_EQ(t.count("init"), 1);
    unlink(out.c_str());
}

// Runs in the controlling process libpctx forks for the child: follows it
// and writes what happened to the test's pipe.
void follow_child(pctx_t *child, pid_t oldpid, pid_t newpid, id_t lwpid, void *arg) {
    // This runs in a copy of the test process: arg is this copy's Trace,
    // as cputrack's state is its own in each controlling process.
    Trace *t = Trace::of(arg);
    t->events.clear();
    t->watch(child);
    int rc = pctx_run(child, 0, 0, nullptr);
    std::string msg = "fork " + std::to_string(oldpid) + " " + std::to_string(newpid) + " " +
                      std::to_string(lwpid) + "\n";
    for (const std::string &e : t->events)
        msg += e + "\n";
    msg += "run " + std::to_string(rc) + "\nend\n";
    ssize_t n = write(t->report_fd, msg.data(), msg.size());
    (void)n;
}

std::vector<std::string> read_report(int fd, int timeout_ms) {
    std::vector<std::string> lines;
    std::string cur;
    int64_t end = now_ms() + timeout_ms;
    while (now_ms() < end) {
        pollfd pfd{fd, POLLIN, 0};
        if (poll(&pfd, 1, 100) <= 0)
            continue;
        char c;
        if (read(fd, &c, 1) != 1)
            break;
        if (c != '\n') {
            cur += c;
            continue;
        }
        lines.push_back(cur);
        if (cur == "end")
            break;
        cur.clear();
    }
    return lines;
}

void check_fork_followed(const char *mode) {
    Trace t;
    int fds[2];
    ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
    t.report_fd = fds[1];
    std::string out = temp_file();
    pctx_t *p = create({PCTX_EXEC, mode, out}, &t);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    pid_t pid = __pctx_pid(p);
    t.watch(p);
    pctx_set_events(p, PCTX_SYSC_FORK_EVENT, follow_child, PCTX_NULL_EVENT);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0) << PctxErrors::all();
    pctx_release(p);
    EXPECT_EQ(t.count("exit 0"), 1) << ::testing::PrintToString(t.events);
    std::vector<std::string> r = read_report(fds[0], 10000);
    close(fds[0]);
    close(fds[1]);
    pid_t child = std::atoi(read_file(out).c_str());
    unlink(out.c_str());
    ASSERT_GE(r.size(), 1u) << "no report from the child's controlling process";
    EXPECT_EQ(r[0], "fork " + std::to_string(pid) + " " + std::to_string(child) + " " +
                        std::to_string(pid));
    std::vector<std::string> want = {"init " + std::to_string(child),
                                     "fini " + std::to_string(child),
                                     "exec true",
                                     "init " + std::to_string(child),
                                     "fini " + std::to_string(child),
                                     "exit 0",
                                     "run 0",
                                     "end"};
    EXPECT_EQ(std::vector<std::string>(r.begin() + 1, r.end()), want);
}

TEST(Pctx, ForkChildIsFollowedUnderItsOwnControllerWithForkCallback) {
    SKIP_WITHOUT_PTRACE();
    check_fork_followed("fork-true");
}

TEST(Pctx, VforkChildIsFollowedToo) {
    SKIP_WITHOUT_PTRACE();
    check_fork_followed("vfork-true");
}

// ---- pctx_capture ----

TEST(Pctx, CaptureOfARunningProcessAndReleaseLeaveItRunning) {
    SKIP_WITHOUT_PTRACE();
    Spawned sl({PCTX_SLEEPER, "800"});
    ASSERT_EQ(sl.line(), "ready");
    Trace t;
    PctxErrors::clear();
    pctx_t *p = pctx_capture(sl.pid, &t, 0, PctxErrors::fn);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    EXPECT_EQ(tracer_of(sl.pid), getpid());
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 20, 3, Trace::tick), 0);
    pctx_release(p);
    EXPECT_EQ(tracer_of(sl.pid), 0);
    // Both threads were discovered.
    EXPECT_EQ(t.count("init"), 2) << ::testing::PrintToString(t.events);
    int st = sl.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << std::hex << st;
}

TEST(Pctx, CaptureOfAProcessWhoseMainThreadEndedFollowsTheRest) {
    SKIP_WITHOUT_PTRACE();
    // The main thread is a zombie that ptrace cannot seize; the process
    // ends with its last thread.
    Spawned sp({PCTX_EXEC, "main-exits", "300"});
    ASSERT_EQ(sp.line(), "ready");
    usleep(50000); // the main thread is gone
    Trace t;
    PctxErrors::clear();
    pctx_t *p = pctx_capture(sp.pid, &t, 0, PctxErrors::fn);
    ASSERT_NE(p, nullptr) << PctxErrors::all();
    t.watch(p);
    EXPECT_EQ(pctx_run(p, 0, 0, nullptr), 0);
    pctx_release(p);
    EXPECT_EQ(t.count("init"), 1) << ::testing::PrintToString(t.events);
    EXPECT_EQ(t.events.back(), "exit 0") << ::testing::PrintToString(t.events);
    int st = sp.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << std::hex << st;
}

TEST(Pctx, CaptureOfANonexistentProcessFailsWithEsrch) {
    PctxErrors::clear();
    pid_t nobody = 4194304 + 1; // above pid_max
    EXPECT_EQ(pctx_capture(nobody, nullptr, 0, PctxErrors::fn), nullptr);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_TRUE(PctxErrors::said("doesn't exist")) << PctxErrors::all();
    EXPECT_EQ(PctxErrors::fns.at(0), "capture");
}

TEST(Pctx, CaptureOfAZombieFailsWithEsrch) {
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    for (int i = 0; i < 200 && read_file("/proc/" + std::to_string(child) + "/stat").find(") Z") ==
                                   std::string::npos;
         ++i)
        usleep(5000);
    PctxErrors::clear();
    EXPECT_EQ(pctx_capture(child, nullptr, 0, PctxErrors::fn), nullptr);
    EXPECT_EQ(errno, ESRCH);
    EXPECT_TRUE(PctxErrors::said("is a zombie")) << PctxErrors::all();
    waitpid(child, nullptr, 0);
}

TEST(Pctx, CaptureOfItselfOrOfATracedProcessIsRefused) {
    SKIP_WITHOUT_PTRACE();
    PctxErrors::clear();
    EXPECT_EQ(pctx_capture(getpid(), nullptr, 0, PctxErrors::fn), nullptr);
    EXPECT_EQ(errno, EINVAL);
    Spawned sl({PCTX_SLEEPER, "300"});
    ASSERT_EQ(sl.line(), "ready");
    pctx_t *p = pctx_capture(sl.pid, nullptr, 0, PctxErrors::fn);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(pctx_capture(sl.pid, nullptr, 0, PctxErrors::fn), nullptr);
    EXPECT_EQ(errno, EBUSY);
    EXPECT_TRUE(PctxErrors::said("already being traced")) << PctxErrors::all();
    pctx_release(p);
    int st = sl.wait();
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << std::hex << st;
}

} // namespace
