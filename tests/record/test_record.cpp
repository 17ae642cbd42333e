// SPDX-License-Identifier: MIT
// `cpcprof record` as a user meets it: exit status, summary, the output
// file, options, a target that crashes, a recorder that is killed, ^C, and
// what an excluded child inherits.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;
using namespace std::chrono_literals;

namespace {

const storage::ProcessRecord *process(const Profile &p, int pid) {
    for (const storage::ProcessRecord &r : p.reader->processes())
        if (r.info.pid == pid)
            return &r;
    return nullptr;
}

bool exists(const std::string &path) {
    return access(path.c_str(), F_OK) == 0;
}

// CPU seconds the first child of process pid has used (its utime and
// stime in /proc), or -1 while it has none.
double child_cpu_seconds(pid_t pid) {
    std::ifstream children("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) +
                           "/children");
    pid_t child = 0;
    if (!(children >> child))
        return -1;
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    std::getline(stat, line);
    size_t paren = line.rfind(')');
    if (paren == std::string::npos)
        return -1;
    std::istringstream fields(line.substr(paren + 2));
    std::string f;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> f; ++i) { // fields 3.. after "pid (comm)"
        if (i == 14)
            utime = std::stoull(f);
        if (i == 15)
            stime = std::stoull(f);
    }
    return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

} // namespace

TEST(RecordCli, ExitStatusIsTheTargets) {
    for (int code : {0, 3, 42}) {
        TempDir dir;
        RunResult r = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", "sh", "-c",
                                        "exit " + std::to_string(code)});
        EXPECT_EQ(r.status, code) << r.err;
        Profile p = load_profile(dir.file("out.cpcprof"));
        ASSERT_TRUE(p) << p.error;
        ASSERT_EQ(p.reader->processes().size(), 1u);
        EXPECT_EQ(p.reader->processes()[0].exit_status, code);
        EXPECT_FALSE(p.reader->processes()[0].killed_by_signal.has_value());
        EXPECT_TRUE(p.reader->complete());
    }
}

// The recorder checks the event set by binding it in its own thread before
// it starts the target.  A period shorter than that check (cpu-clock
// fires after 10 us at the least) once overflowed there and SIGEMT killed
// the recorder, silently; it must record, and its target must be sampled.
// Periods that short are now refused (they never let the target finish):
// the shortest period this machine accepts, named by the refusal of a
// 1 us one, is recorded instead (twice it, for the next measurement's
// noise; still far below the 100 us beyond which nothing is measured).
TEST(RecordCli, PeriodShorterThanTheEventCheckRecords) {
    TempDir dir;
    RunResult refused =
        run_cpcprof(dir, {"record", "-e", "cpu-clock,1000", "-o", "out.cpcprof", "--", "true"});
    ASSERT_EQ(refused.status, 1) << refused.err;
    std::smatch m;
    static const std::regex lowest_re(
        R"(the lowest period accepted here is [0-9.]+ us \(-c (\d+))");
    ASSERT_TRUE(std::regex_search(refused.err, m, lowest_re)) << refused.err;
    uint64_t period = 2 * std::stoull(m[1]);
    // About 0.3 s of CPU time (the measurement, the workload's 64 MB of page
    // faults and 0.05 s of spins, the round trips), not symbolized: 35 s
    // each leaves a machine that gives it a hundredth of a CPU room, and
    // three attempts stay within the test's 120 s.
    RunResult r;
    for (int attempt = 0; attempt < 3; ++attempt) {
        r = run_cpcprof(dir,
                        {"record", "--no-symbolize", "-e", "cpu-clock," + std::to_string(period),
                         "-o", "out.cpcprof", "--", WORKLOAD_FP, "--seconds", "0.05"},
                        35);
        ASSERT_FALSE(r.timed_out) << "killed after 35 s\n" << r.err;
        if (r.status != 1 || !std::regex_search(r.err, m, lowest_re))
            break;
        period = 2 * std::stoull(m[1]); // measured slower this time (a loaded machine)
    }
    ASSERT_EQ(r.status, 0) << r.err;
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s) << "no summary line in:\n" << r.err;
    EXPECT_GT(s->stored, 0u);
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(p.reader->complete());
}

// Each sample says the processor it was taken on (the agent asks as it
// takes it): a program kept on one processor (taskset, the last this test
// may use, not 0 where there is another) has that one in every sample,
// however busy the machine.
TEST(RecordCli, EachSampleSaysItsProcessor) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    int cpu = -1;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed))
            cpu = c;
    ASSERT_GE(cpu, 0);
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", "taskset", "-c", std::to_string(cpu),
                          WORKLOAD_FP, "--seconds", "0.2", "--thread-seconds", "0.1"});
    ASSERT_EQ(r.status, 0) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ASSERT_GT(p.samples.size(), 100u) << r.err;
    EXPECT_EQ(cpus_of(p), std::set<int>{cpu}) << "kept on processor " << cpu;
}

// Every sample the sampler took is either in the file or counted as
// dropped; a 16 KB ring at 10 kHz with 40-deep stacks must drop some.
TEST(RecordCli, SummaryAccountsForEverySample) {
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-F", "10000", "--ring-kb", "16", "-o", "out.cpcprof", "--",
                          WORKLOAD_FP, "--seconds", "0.6", "--thread-seconds", "0.3"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s) << "no summary line in:\n" << r.err;
    std::printf("summary: taken %llu stored %llu dropped %llu\n", (unsigned long long)s->taken,
                (unsigned long long)s->stored, (unsigned long long)s->dropped);
    EXPECT_EQ(s->taken, s->stored + s->dropped);
    EXPECT_GT(s->dropped, 0u) << "a 16 KB ring at 10 kHz should overflow";
    EXPECT_GT(s->stored, 500u);
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    storage::Accounting total = p.reader->accounting_total();
    EXPECT_TRUE(p.reader->accounting_balanced());
    EXPECT_EQ(total.taken, s->taken);
    EXPECT_EQ(total.stored, s->stored);
    EXPECT_EQ(total.dropped, s->dropped);
    EXPECT_EQ(p.reader->sample_count(), s->stored);
    EXPECT_EQ(p.samples.size(), s->stored);
    // The summary states the share of complete stacks in the file, in
    // tenths of a percent rounded down.
    std::smatch m;
    static const std::regex share_re(R"(; complete stacks: (\d+)\.(\d) %\n)");
    ASSERT_TRUE(std::regex_search(r.err, m, share_re)) << r.err;
    uint64_t complete = 0;
    for (const SampleCopy &c : p.samples)
        complete += c.complete ? 1 : 0;
    EXPECT_EQ(std::stoull(m[1]) * 10 + std::stoull(m[2]), complete * 1000 / p.samples.size())
        << r.err << complete << " of " << p.samples.size();
    // Each says the processor it was taken on (RecordCli.EachSampleSaysItsProcessor).
    const std::set<int> cpus = cpus_of(p);
    EXPECT_GE(*cpus.begin(), 0) << "a sample does not say its processor";
    EXPECT_LT(*cpus.rbegin(), sysconf(_SC_NPROCESSORS_CONF));
}

TEST(RecordCli, KeepsAnExistingOutputFileAsOld) {
    TempDir dir;
    {
        std::ofstream old(dir.file("out.cpcprof"));
        old << "an earlier recording\n";
    }
    RunResult r = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", "true"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(dir.file("out.cpcprof.old")), "an earlier recording\n");
    Profile p = load_profile(dir.file("out.cpcprof"));
    EXPECT_TRUE(p) << p.error;

    // Again: the profile just written becomes the .old one.
    r = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", "true"});
    ASSERT_EQ(r.status, 0) << r.err;
    Profile older = load_profile(dir.file("out.cpcprof.old"));
    EXPECT_TRUE(older) << older.error;
}

TEST(RecordCli, BadOptionsPrintUsageAndExit2) {
    const std::vector<std::vector<std::string>> bad = {
        {"record"},
        {"record", "--"},
        {"record", "--call-graph", "lbr", "--", "true"},
        {"record", "-c", "0", "--", "true"},
        {"record", "-c", "1000", "-F", "100", "--", "true"},
        {"record", "-F", "lots", "--", "true"},
        {"record", "--max-depth", "5000", "--", "true"},
        {"record", "-e", ",100", "--", "true"},
        {"record", "-e", "cpu-clock,-5", "--", "true"},
        {"record", "--bogus", "--", "true"},
        {"record", "-o"},
        {"recrod", "--", "true"},
    };
    for (const auto &args : bad) {
        TempDir dir;
        RunResult r = run_cpcprof(dir, args);
        std::string shown;
        for (const std::string &a : args)
            shown += a + " ";
        EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
        EXPECT_NE(r.err.find("usage: cpcprof"), std::string::npos) << shown << "\n" << r.err;
        EXPECT_FALSE(exists(dir.file("out.cpcprof"))) << shown;
    }
}

TEST(RecordCli, UnknownEventGivesLibcpcMessageAndExit1) {
    {
        TempDir dir;
        RunResult r = run_cpcprof(dir, {"record", "-e", "no_such_event_xyz", "--", "true"});
        EXPECT_EQ(r.status, 1) << r.err;
        EXPECT_NE(r.err.find("no_such_event_xyz"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("usage:"), std::string::npos) << r.err;
        EXPECT_FALSE(exists(dir.file("out.cpcprof")));
    }
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-e", "cycles", "--", "true"});
    if (r.status == 0)
        GTEST_SKIP() << "this machine counts cycles (it has a hardware PMU)";
    std::printf("-e cycles: %s", r.err.c_str());
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("cycles"), std::string::npos) << r.err;
    // libcpc says why, not just that it failed.
    EXPECT_NE(r.err.find("hardware"), std::string::npos) << r.err;
    EXPECT_FALSE(exists(dir.file("out.cpcprof")));
}

TEST(RecordCrash, SamplesUpToTheCrashAreKept) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", CRASH_EXE, "2"});
    EXPECT_EQ(r.status, 139) << r.err;
    auto busy = lines_with(r.out, "busy ");
    auto crash = lines_with(r.out, "crash ");
    ASSERT_EQ(busy.size(), 1u) << r.out;
    ASSERT_EQ(crash.size(), 1u) << r.out;
    double busy_s = std::stod(busy[0]);
    int64_t crash_ns = std::stoll(crash[0]);

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(p.reader->complete());
    ASSERT_EQ(p.reader->processes().size(), 1u);
    const storage::ProcessRecord &proc = p.reader->processes()[0];
    EXPECT_EQ(proc.killed_by_signal, SIGSEGV);
    EXPECT_FALSE(proc.exit_status.has_value());

    auto ref = clock_reference(r.out, "busy");
    ASSERT_TRUE(ref) << "the target counted no clock periods of its own:\n" << r.out;
    ProfileSymbols syms(*p.reader);
    size_t in_busy = samples_in(p, syms, "crash_busy");
    int64_t last = 0;
    for (const SampleCopy &s : p.samples)
        last = std::max(last, s.time_ns);
    // One sample per period of CPU time that the kernel took as an
    // overflow (a period that ends in the kernel is none, CPC_COUNT_USER),
    // all of them kept up to the last drain, at most 10 ms before the
    // crash: as many as the target's reference count of the same clock
    // allows.
    std::printf("crash_busy: %zu samples for %.3f s; last sample %.1f ms before the crash\n",
                in_busy, busy_s, double(crash_ns - last) / 1e6);
    EXPECT_GE(in_busy + unseen_tail_samples(p, 1'000'000), ref->fewest_samples())
        << ref->story(in_busy);
    EXPECT_LE(in_busy, ref->most_samples()) << ref->story(in_busy);
    // On the timer backend the kernel may not have checked the thread's
    // last stretch of CPU time (up to ~134 ms of it beside load, which can
    // be seconds of wall time on a busy machine): the count above, with
    // its allowance, is the check there.
    if (timer_backend(p))
        std::printf("timer backend: the time of the last sample is not checked\n");
    else
        EXPECT_GT(last, crash_ns - 50'000'000) << "samples of the last moments are missing";
    EXPECT_LE(last, crash_ns);
    ASSERT_TRUE(proc.end_ns.has_value());
    EXPECT_GE(*proc.end_ns, crash_ns);
    EXPECT_LT(*proc.end_ns, crash_ns + 1'000'000'000) << "end time on another clock?";
}

// A crash kills the agent's drain thread wherever it is, possibly between
// a batch of samples and the account that counts them; with 128 threads
// sampled at 10 kHz on 2 cores the drain thread is starved and its
// batches are large.  Every sample in the file is one the sampler took.
TEST(RecordCrash, AccountingBalancesWhenAThreadedTargetCrashes) {
    TempDir dir;
    RunResult r = run_cpcprof(
        dir, {"record", "-F", "10000", "-o", "out.cpcprof", "--", CRASH_EXE, "0.02", "128"});
    EXPECT_EQ(r.status, 139) << r.err;
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s) << r.err;
    std::printf("summary: taken %llu stored %llu dropped %llu\n", (unsigned long long)s->taken,
                (unsigned long long)s->stored, (unsigned long long)s->dropped);
    EXPECT_EQ(s->taken, s->stored + s->dropped);
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(p.reader->accounting_balanced());
    EXPECT_EQ(p.reader->accounting_total().stored, p.reader->sample_count());
    EXPECT_EQ(p.reader->accounting_total().taken, s->taken);
}

// The target runs on to its normal end when the recorder dies, and the
// recorder's file is usable up to its last commit.
TEST(RecordKill, TargetSurvivesARecorderKilledMidRun) {
    TempDir dir;
    ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); // the orphaned target comes to us
    pid_t rec = start_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", WORKLOAD_FP, "--seconds",
                                    "1.5", "--thread-seconds", "0.5"});
    // Mid-run: once a commit (every 100 ms) holds more than 100 samples,
    // a tenth of the target's 2 s of CPU time, however loaded the machine
    // is: SQLite's own count of the committed rows.
    int64_t committed = 0;
    double cpu = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 20s;
         committed <= 100 && std::chrono::steady_clock::now() < deadline;) {
        std::this_thread::sleep_for(20ms);
        committed = committed_samples(dir.file("out.cpcprof"));
        cpu = child_cpu_seconds(rec);
    }
    if (committed <= 100 || cpu >= 1.9) {
        kill(-rec, SIGKILL); // the recorder's group: the target too
        waitpid(rec, nullptr, 0);
        prctl(PR_SET_CHILD_SUBREAPER, 0);
        FAIL() << "not killed mid-run: the file held " << committed
               << " committed samples (more than 100 wanted, for up to 20 s) when the target "
                  "had run "
               << cpu << " s of its 2 s of CPU time";
    }
    ASSERT_EQ(kill(rec, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(rec, &status, 0), rec);
    ASSERT_TRUE(WIFSIGNALED(status));

    pid_t target = -1;
    for (int i = 0; i < 3000 && target <= 0; ++i) { // up to 30 s
        target = waitpid(-1, &status, WNOHANG);
        if (target == 0)
            std::this_thread::sleep_for(10ms);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    ASSERT_GT(target, 0) << "the target did not end";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
    std::string out = read_file(dir.file("stdout"));
    EXPECT_EQ(lines_with(out, "share ").size(), 4u) << out;
    EXPECT_EQ(lines_with(out, "depth wl_recurse ").size(), 1u) << out;

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_FALSE(p.reader->complete());
    EXPECT_GE(int64_t(p.samples.size()), committed) << "committed samples are missing";
    EXPECT_EQ(integrity_check(dir.file("out.cpcprof")), "ok");
}

// ^C at the terminal goes to the whole foreground process group: the
// target must get it (and die of it), the recorder must finish the file.

// The interrupt comes once the target has run 0.3 s of CPU time (about
// 300 samples), however loaded the machine is.
TEST(RecordCli, InterruptReachesTheTargetAndTheFileIsFinished) {
    TempDir dir;
    pid_t rec = start_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", CRASH_EXE, "20"});
    double cpu = 0;
    for (auto deadline = std::chrono::steady_clock::now() + 20s;
         cpu < 0.3 && std::chrono::steady_clock::now() < deadline;) {
        std::this_thread::sleep_for(20ms);
        cpu = child_cpu_seconds(rec);
    }
    kill(-rec, SIGINT); // start_cpcprof made it a process group leader
    EXPECT_GE(cpu, 0.3) << "interrupted after 20 s, when the target had run only " << cpu
                        << " s of CPU time";
    RunResult r = wait_cpcprof(dir, rec, 10);
    EXPECT_FALSE(r.timed_out) << "the target ignored SIGINT";
    EXPECT_EQ(r.status, 128 + SIGINT) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(p.reader->complete());
    ASSERT_EQ(p.reader->processes().size(), 1u);
    EXPECT_EQ(p.reader->processes()[0].killed_by_signal, SIGINT);
    EXPECT_GT(p.samples.size(), 100u);
}

namespace {

struct Listing {
    std::vector<std::string> fds, env;
    int lister_pid = -1;
};

Listing listing(const std::string &out) {
    Listing l;
    l.fds = lines_with(out, "fd ");
    l.env = lines_with(out, "env ");
    auto pid = lines_with(out, "lister ");
    if (pid.size() == 1)
        l.lister_pid = std::stoi(pid[0]);
    return l;
}

bool any_contains(const std::vector<std::string> &lines, const std::string &needle) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string &l) { return l.find(needle) != std::string::npos; });
}

} // namespace

// --no-children: a program the target execs gets neither the channel nor
// the agent.  The same run without the option shows both, so the check
// would see them.
TEST(RecordChildren, ExcludedExecChildHasNoProfilerFdOrPreload) {
    {
        TempDir dir;
        RunResult r =
            run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", FORKER_EXE, "exec-lister"});
        ASSERT_EQ(r.status, 0) << r.err;
        Listing l = listing(r.out);
        ASSERT_GT(l.lister_pid, 0) << r.out;
        EXPECT_TRUE(any_contains(l.fds, "socket:")) << "followed child: the channel is inherited\n"
                                                    << r.out;
        EXPECT_TRUE(any_contains(l.env, "libcpcprof-agent")) << r.out;
        EXPECT_TRUE(any_contains(l.env, "CPC_SIGEMT_STABLE=1"))
            << "a followed child's agent guards SIGEMT too\n"
            << r.out;
        Profile p = load_profile(dir.file("out.cpcprof"));
        ASSERT_TRUE(p) << p.error;
        EXPECT_NE(process(p, l.lister_pid), nullptr) << "followed child not recorded";
    }
    TempDir dir;
    RunResult r = run_cpcprof(
        dir, {"record", "--no-children", "-o", "out.cpcprof", "--", FORKER_EXE, "exec-lister"});
    ASSERT_EQ(r.status, 0) << r.err;
    Listing l = listing(r.out);
    ASSERT_GT(l.lister_pid, 0) << r.out;
    for (const std::string &fd : l.fds)
        EXPECT_EQ(fd.find("socket:"), std::string::npos) << "recorder's socket leaked: fd " << fd;
    for (const std::string &e : l.env) {
        EXPECT_EQ(e.find("libcpcprof-agent"), std::string::npos) << e;
        EXPECT_NE(e.rfind("CPCPROF_", 0), 0u) << e;
        EXPECT_NE(e.rfind("CPC_SIGEMT_STABLE", 0), 0u)
            << "no agent guards an excluded child's SIGEMT";
    }
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_EQ(process(p, l.lister_pid), nullptr) << "excluded child recorded";
    EXPECT_EQ(p.reader->processes().size(), 1u);
}
