// SPDX-License-Identifier: MIT
// cpustat(8) driven as a program: every option, every error message, and
// the output compared line by line with lines built here (only times and
// counts are taken from the output).
#include "profiler/tools/caps.h"
#include "profiler/tools/cpustat_options.h"
#include "tests/support/files.h"
#include "tests/support/libcpc_checks.h"
#include "tests/support/process.h"

#include <gtest/gtest.h>

#include <libcpc.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <grp.h>
#include <new>
#include <poll.h>
#include <regex>
#include <sched.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using cpcprof::test::libcpc_refusal;
using cpcprof::test::split_lines;
using Result = cpcprof::test::Captured; // status, out, err, seconds (wall), cpu (cpustat's)

struct RunOpts {
    uid_t uid = 0; // non-zero: drop to this uid/gid before exec
    double sigint_after = 0;
    // Called every 20 ms while cpustat runs, with its output so far.
    std::function<void(const std::string &out)> watch = nullptr;
};

Result run(std::vector<std::string> args, RunOpts o = {}) {
    args.insert(args.begin(), CPUSTAT_PATH);
    return cpcprof::test::run_capturing(
        args, {.uid = o.uid, .sigint_after = o.sigint_after, .watch = o.watch});
}

std::string usage_error(const std::string &why) {
    return "cpustat: " + why + "\n" + cpcprof::tools::kCpustatUsage;
}

std::vector<std::string> lines(const std::string &text) {
    return split_lines(text);
}

// Online CPUs in our affinity mask: the ones cpustat counts.
std::vector<int> usable_cpus() {
    cpu_set_t mask;
    sched_getaffinity(0, sizeof mask, &mask);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (!CPU_ISSET(c, &mask))
            continue;
        std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/online");
        int on = 1;
        if (f >> on; on)
            cpus.push_back(c);
    }
    return cpus;
}

// One parsed output line: "%7.3f %3d %5s " [tsc] counts [" # spec"].
struct Line {
    double time = 0;
    int cpu = -1;
    std::string label;
    std::vector<long long> values; // tsc first when -t
    std::string spec;
};

// The line as cpustat must print it with these values.
std::string format(const Line &l) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%7.3f %3d %5s ", l.time, l.cpu, l.label.c_str());
    std::string s = buf;
    for (long long v : l.values) {
        std::snprintf(buf, sizeof buf, "%9lld ", v);
        s += buf;
    }
    if (!l.spec.empty())
        s += " # " + l.spec;
    return s;
}

// Takes times and counts from text; the rest must match format() exactly.
Line parse(const std::string &text) {
    Line l;
    std::string body = text;
    size_t hash = text.find(" # ");
    if (hash != std::string::npos) {
        l.spec = text.substr(hash + 3);
        body = text.substr(0, hash);
    }
    std::istringstream in(body);
    in >> l.time >> l.cpu >> l.label;
    for (long long v; in >> v;)
        l.values.push_back(v);
    EXPECT_EQ(format(l), text) << "malformed line";
    return l;
}

std::string header(const std::vector<std::string> &cols, const std::string &spec = "") {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%7s %3s %5s ", "time", "cpu", "event");
    std::string h = buf;
    for (const std::string &c : cols) {
        std::snprintf(buf, sizeof buf, "%9s ", c.c_str());
        h += buf;
    }
    return spec.empty() ? h : h + " # " + spec;
}

// A line's time: when its round was sampled, seconds from the start.  Not
// before the round's deadline, and not after cpustat ended (run_seconds,
// the test's own clock).  How late after the deadline is the machine's
// doing (a sampling thread waits for a CPU on a busy one: 0.4-1.3 s were
// seen beside two CPU hogs), so it is not held to a wall-clock bound.
void check_time(double time, double deadline, double run_seconds, const std::string &line) {
    EXPECT_GE(time, deadline - 0.05) << line;
    EXPECT_LE(time, run_seconds + 0.05) << line;
}

// Checks the tick lines of rounds (CPU order, one set per round in turn,
// times at or after the deadlines) and that each total line sums its set.
void check_samples(const std::vector<std::string> &ls, size_t first, size_t rounds,
                   const std::vector<double> &deadlines, const std::vector<std::string> &specs,
                   size_t ncols, double run_seconds) {
    std::vector<int> cpus = usable_cpus();
    size_t nsets = std::max<size_t>(specs.size(), 1);
    ASSERT_EQ(ls.size(), first + rounds * cpus.size() + nsets);
    std::vector<std::vector<long long>> sums(nsets, std::vector<long long>(ncols, 0));
    for (size_t r = 0; r < rounds; ++r) {
        for (size_t i = 0; i < cpus.size(); ++i) {
            Line l = parse(ls[first + r * cpus.size() + i]);
            EXPECT_EQ(l.cpu, cpus[i]);
            EXPECT_EQ(l.label, "tick");
            check_time(l.time, deadlines[r], run_seconds, ls[first + r * cpus.size() + i]);
            EXPECT_EQ(l.spec, specs.empty() ? "" : specs[r % nsets]);
            ASSERT_EQ(l.values.size(), ncols);
            for (size_t k = 0; k < ncols; ++k)
                sums[r % nsets][k] += l.values[k];
        }
    }
    for (size_t s = 0; s < nsets; ++s) {
        Line t = parse(ls[first + rounds * cpus.size() + s]);
        EXPECT_EQ(t.label, "total");
        EXPECT_EQ(t.cpu, int(cpus.size()));
        EXPECT_EQ(t.values, sums[s]);
        EXPECT_EQ(t.spec, specs.empty() ? "" : specs[s]);
    }
}

TEST(Cpustat, HelpPrintsUsageAndCapabilities) {
    Result r = run({"-h"});
    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    std::string caps = cpcprof::tools::format_capabilities(cpcprof::tools::read_capabilities(cpc));
    cpc_close(cpc);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, std::string(cpcprof::tools::kCpustatUsage) + "\n" + caps);
    EXPECT_EQ(r.err, "");
}

TEST(Cpustat, UsageErrorsExit2) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{}, "no event specification (-c) given"},
        {{"5"}, "no event specification (-c) given"},
        {{"-x", "-c", "cpu-clock"}, "unknown option -x"},
        {{"-c"}, "option -c needs a value"},
        {{"-c", "cpu-clock", "-T"}, "option -T needs a value"},
        {{"-c", "cpu-clock", "-p"}, "option -p needs a value"},
        {{"-c", "cpu-clock", "-T", "x"}, "-T takes u or d, not 'x'"},
        {{"-c", "cpu-clock", "-T", "ud"}, "-T takes u or d, not 'ud'"},
        {{"-c", "cpu-clock", "-p", "0"}, "-p takes a period in seconds greater than 0, not '0'"},
        {{"-c", "cpu-clock", "-p", "x"}, "-p takes a period in seconds greater than 0, not 'x'"},
        {{"-c", "cpu-clock", "0"}, "interval must be a number of seconds greater than 0, not '0'"},
        {{"-c", "cpu-clock", "--", "-1"},
         "interval must be a number of seconds greater than 0, not '-1'"},
        {{"-c", "cpu-clock", "1s"},
         "interval must be a number of seconds greater than 0, not '1s'"},
        {{"-c", "cpu-clock", "1", "0"}, "count must be a whole number greater than 0, not '0'"},
        {{"-c", "cpu-clock", "1", "1.5"}, "count must be a whole number greater than 0, not '1.5'"},
        {{"-c", "cpu-clock", "1", "2", "3"}, "unexpected argument '3'"},
        {{"-c", "cpu-clock", "-c", "page-faults", "-p", "1", "0.6"},
         "period must be at least the interval times the number of event sets"},
        {{"-c", "cpu-clock,,page-faults", "1", "1"},
         "-c cpu-clock,,page-faults: empty token (two commas, or a comma at either end)"},
        {{"-c", "cpu-clock,frob=3", "1", "1"},
         "-c cpu-clock,frob=3: token 'frob=3': unknown attribute 'frob'"},
        {{"-c", "pic0=cpu-clock,pic0=page-faults"},
         "-c pic0=cpu-clock,pic0=page-faults: token 'pic0=page-faults': counter 0 already has "
         "an event"},
    };
    for (const auto &[args, why] : cases) {
        Result r = run(args);
        EXPECT_EQ(r.status, 2) << why;
        std::string err = r.err;
        // The machine may or may not have attributes to list.
        err = std::regex_replace(err, std::regex(" \\(this machine has none\\)"), "");
        EXPECT_EQ(err, usage_error(why));
        EXPECT_EQ(r.out, "");
    }
}

TEST(Cpustat, EventsLibcpcRefusesExit1WithItsMessage) {
    std::string unknown = libcpc_refusal("no-such-event");
    ASSERT_NE(unknown, "");
    Result r = run({"-c", "cpu-clock,no-such-event", "1", "1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cpustat: -c cpu-clock,no-such-event: " + unknown + "\n");
    r = run({"-D", "-c", "no-such-event", "1", "1"});
    EXPECT_EQ(r.err, "cpustat: -c no-such-event: cpc_set_add_request: " + unknown + "\n");

    // A hardware event on a machine without a PMU: libcpc's message says so.
    std::string hw = libcpc_refusal("cycles");
    if (hw.empty())
        GTEST_SKIP() << "this machine counts cycles: no refusal to pass through";
    EXPECT_NE(hw.find("hardware"), std::string::npos) << hw;
    r = run({"-c", "cycles", "1", "1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cpustat: -c cycles: " + hw + "\n");
    EXPECT_EQ(r.out, "");
}

TEST(Cpustat, WithoutPrivilegeFailsAtOnce) {
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to run cpustat as uid 65534";
    std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
    int paranoid = 2;
    f >> paranoid;
    if (paranoid <= 0)
        GTEST_SKIP() << "perf_event_paranoid <= 0 lets anyone count CPUs";
    Result r = run({"-c", "cpu-clock", "5"}, {.uid = 65534});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cpustat: counting on a CPU needs CAP_PERFMON or root\n");
    EXPECT_EQ(r.out, "");
    EXPECT_LT(r.seconds, 4.0) << "refused at once, not after the first 5 s round";
    r = run({"-D", "-c", "cpu-clock", "5"}, {.uid = 65534});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "cpustat: cpc_bind_cpu: counting on a CPU needs CAP_PERFMON or root\n");
}

TEST(Cpustat, OneSetPrintsDeltasAndTotals) {
    Result r = run({"-c", "page-faults,cpu-clock", "0.25", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    std::vector<std::string> ls = lines(r.out);
    ASSERT_FALSE(ls.empty());
    EXPECT_EQ(ls[0], header({"pic0", "pic1"}));
    check_samples(ls, 1, 3, {0.25, 0.5, 0.75}, {}, 2, r.seconds);
    // cpu-clock of a CPU counts its wall time, busy or idle: about one
    // interval per sample (deltas, not running sums).
    Line l = parse(ls[3]);
    EXPECT_NEAR(double(l.values[1]), 0.25e9, 0.05e9);
}

TEST(Cpustat, NoHeaderAndTsc) {
    Result r = run({"-n", "-t", "-c", "pic1=cpu-clock,pic0=page-faults", "0.2", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> ls = lines(r.out);
    check_samples(ls, 0, 2, {0.2, 0.4}, {}, 3, r.seconds);
    Line l = parse(ls[0]);
    EXPECT_GT(l.values[0], 0); // tsc

    r = run({"-t", "-c", "pic1=cpu-clock,pic0=page-faults", "0.2", "1"});
    EXPECT_EQ(lines(r.out)[0], header({"tsc", "pic1", "pic0"}));
}

TEST(Cpustat, SeveralSetsCyclePerSample) {
    std::vector<std::string> specs = {"cpu-clock", "page-faults,context-switches,sys"};
    Result r = run({"-c", specs[0], "-c", specs[1], "0.2", "4"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> ls = lines(r.out);
    ASSERT_GE(ls.size(), 2u);
    EXPECT_EQ(ls[0], header({"pic0"}, specs[0]));
    EXPECT_EQ(ls[1], header({"pic0", "pic1"}, specs[1]));
    // Rounds alternate sets; check_samples wants one column count, so
    // check the shapes here and the sums per set below.
    std::vector<int> cpus = usable_cpus();
    ASSERT_EQ(ls.size(), 2 + 4 * cpus.size() + 2);
    std::vector<std::vector<long long>> sums = {{0}, {0, 0}};
    for (size_t round = 0; round < 4; ++round) {
        for (size_t i = 0; i < cpus.size(); ++i) {
            Line l = parse(ls[2 + round * cpus.size() + i]);
            EXPECT_EQ(l.spec, specs[round % 2]);
            EXPECT_EQ(l.cpu, cpus[i]);
            check_time(l.time, 0.2 * double(round + 1), r.seconds, ls[2 + round * cpus.size() + i]);
            ASSERT_EQ(l.values.size(), round % 2 == 0 ? 1u : 2u);
            for (size_t k = 0; k < l.values.size(); ++k)
                sums[round % 2][k] += l.values[k];
        }
        // A set counts only its own interval: cpu-clock is one interval.
        if (round % 2 == 0) {
            EXPECT_NEAR(double(parse(ls[2 + round * cpus.size()]).values[0]), 0.2e9, 0.05e9);
        }
    }
    for (size_t s = 0; s < 2; ++s) {
        Line t = parse(ls[2 + 4 * cpus.size() + s]);
        EXPECT_EQ(t.label, "total");
        EXPECT_EQ(t.cpu, int(cpus.size()));
        EXPECT_EQ(t.values, sums[s]);
        EXPECT_EQ(t.spec, specs[s]);
    }
}

TEST(Cpustat, PeriodSpacesCyclesAndCountCountsThem) {
    Result r = run({"-n", "-p", "0.8", "-c", "cpu-clock", "-c", "task-clock", "0.2", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> ls = lines(r.out);
    std::vector<int> cpus = usable_cpus();
    ASSERT_EQ(ls.size(), 4 * cpus.size() + 2);
    const double times[] = {0.2, 0.4, 1.0, 1.2};
    for (size_t round = 0; round < 4; ++round) {
        Line l = parse(ls[round * cpus.size()]);
        check_time(l.time, times[round], r.seconds, ls[round * cpus.size()]);
        EXPECT_EQ(l.spec, round % 2 ? "task-clock" : "cpu-clock");
    }
    // Only the sampled windows count, not the sleep between cycles.
    EXPECT_NEAR(double(parse(ls[4 * cpus.size()]).values[0]), 2 * 0.2e9 * double(cpus.size()),
                0.1e9 * double(cpus.size()));
}

TEST(Cpustat, TimestampsBeforeEachRound) {
    time_t before = time(nullptr);
    Result r = run({"-n", "-T", "u", "-c", "cpu-clock", "0.2", "2"});
    time_t after = time(nullptr);
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> ls = lines(r.out);
    size_t per = usable_cpus().size() + 1;
    ASSERT_EQ(ls.size(), 2 * per + 1);
    for (size_t round = 0; round < 2; ++round) {
        long long t = std::stoll(ls[round * per]);
        EXPECT_EQ(ls[round * per], std::to_string(t));
        EXPECT_GE(t, before);
        EXPECT_LE(t, after);
        EXPECT_EQ(parse(ls[round * per + 1]).label, "tick");
    }

    before = time(nullptr);
    r = run({"-n", "-T", "d", "-c", "cpu-clock", "0.2", "1"});
    after = time(nullptr);
    ls = lines(r.out);
    ASSERT_FALSE(ls.empty());
    bool matched = false;
    for (time_t t = before; t <= after; ++t) {
        char buf[128];
        struct tm tm;
        localtime_r(&t, &tm);
        std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Z %Y", &tm);
        matched = matched || ls[0] == buf;
    }
    EXPECT_TRUE(matched) << ls[0];
}

// Idle time of the given CPUs so far (/proc/stat: idle and iowait), in
// seconds.
double idle_seconds(const std::vector<int> &cpus) {
    std::ifstream in("/proc/stat");
    double ticks = 0;
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        std::string name;
        unsigned long long user, nice, sys, idle, iowait;
        if (!(f >> name >> user >> nice >> sys >> idle >> iowait) || name.rfind("cpu", 0) != 0 ||
            name == "cpu")
            continue;
        if (std::find(cpus.begin(), cpus.end(), std::stoi(name.substr(3))) != cpus.end())
            ticks += double(idle + iowait);
    }
    return ticks / double(sysconf(_SC_CLK_TCK));
}

// The soakers spin at SCHED_IDLE on every CPU while nouser,sys counts:
// they take the time the CPUs would otherwise idle, and only that (on a
// busy machine there is little; other programs keep their CPU).  Judged
// against the idle time that was there: what the soakers got (cpustat's
// CPU time) is most of the soakers' time plus the idle time left.
TEST(Cpustat, SoakerRunsWhileASystemOnlySetCounts) {
    std::vector<int> cpus = usable_cpus();
    double idle0 = idle_seconds(cpus);
    Result r = run({"-n", "-s", "-c", "cpu-clock,nouser,sys", "0.5", "2"});
    double idle = idle_seconds(cpus) - idle0;
    ASSERT_EQ(r.status, 0) << r.err;
    check_samples(lines(r.out), 0, 2, {0.5, 1.0}, {}, 1, r.seconds);
    std::printf("soakers: cpustat used %.2f s of CPU in %.2f s; %.2f s of idle time was left "
                "on %zu cpus\n",
                r.cpu, r.seconds, idle, cpus.size());
    // Idle left: the start and end of the run (no set counts yet, about
    // 0.1 s a CPU) and a tick's rounding each side.
    EXPECT_GT(r.cpu, 2 * (idle - 0.2 * double(cpus.size()))) << "the soakers left the CPUs idle";
    idle0 = idle_seconds(cpus);
    Result quiet = run({"-n", "-s", "-c", "cpu-clock", "0.5", "2"});
    idle = idle_seconds(cpus) - idle0;
    ASSERT_EQ(quiet.status, 0) << quiet.err;
    std::printf("a set that counts user time: cpustat used %.2f s of CPU; %.2f s of idle time\n",
                quiet.cpu, idle);
    EXPECT_LT(quiet.cpu, 0.2) << "soakers ran for a set that counts user time";
}

TEST(Cpustat, SigintStopsAndPrintsTotals) {
    Result r = run({"-c", "cpu-clock,page-faults", "0.3"}, {.sigint_after = 1.0});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_LT(r.seconds, 4.0) << "SIGINT at 1 s did not stop it"; // room for a busy machine
    std::vector<std::string> ls = lines(r.out);
    size_t ncpus = usable_cpus().size();
    ASSERT_GE(ls.size(), 2u);
    size_t rounds = (ls.size() - 2) / ncpus;
    EXPECT_GE(rounds, 2u);
    std::vector<double> deadlines;
    for (size_t i = 0; i < rounds; ++i)
        deadlines.push_back(0.3 * double(i + 1));
    check_samples(ls, 1, rounds, deadlines, {}, 2, r.seconds);
}

// A child pinned to one CPU that takes page faults: fresh anonymous pages,
// touched and unmapped.  page-faults is the event that tells its CPU from
// the others here.  cpu-clock does not: bound to a CPU it is a timer that
// counts wall time whether the CPU is busy or idle (both CPUs show ~1e9 per
// second).  context-switches does not either: with user counting it is 0
// (switches happen in the kernel), with sys the busy CPU shows fewer of
// them than the idle one, which other programs wake.
//
// Other programs fault too, on every CPU (a compiler takes tens of
// thousands of faults a second), so the child counts its own: it waits for
// `go`, takes at least kFaults faults (the kernel's count for it,
// getrusage), says how many and when it finished, and waits to be killed.
struct FaultingChild {
    std::atomic<bool> go{false};
    std::atomic<long> faults{0};     // taken after go
    std::atomic<int64_t> done_ns{0}; // CLOCK_MONOTONIC when they were
};
static_assert(std::atomic<int64_t>::is_always_lock_free);
constexpr long kFaults = 20000;

int64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

long faults_so_far() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt + ru.ru_majflt;
}

pid_t start_faulting_child(int cpu, FaultingChild *shared) {
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    while (!shared->go.load()) {
        timespec ms{0, 1000 * 1000};
        nanosleep(&ms, nullptr);
    }
    const size_t len = 1 << 20;
    long first = faults_so_far(), taken = 0;
    while (taken < kFaults) {
        void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        for (size_t i = 0; i < len; i += 4096)
            static_cast<volatile char *>(p)[i] = 1;
        munmap(p, len);
        taken = faults_so_far() - first;
    }
    shared->faults.store(taken);
    shared->done_ns.store(monotonic_ns());
    for (;;)
        pause();
}

// Faults taken on the whole machine: /proc/vmstat's pgfault.
long long machine_faults() {
    std::ifstream in("/proc/vmstat");
    std::string name;
    long long v = -1;
    while (in >> name >> v)
        if (name == "pgfault")
            return v;
    return -1;
}

// Every fault the child took after go is counted on its CPU, in the rounds
// after the first (the child starts once the first round is printed, so
// the counters are bound, and must end before the last deadline, which
// is at least rounds * interval after cpustat started).  The counts are
// the CPU's, not the machine's: all CPUs together count no more faults
// than the machine took.  Where other programs take fewer faults than the
// child (a quiet machine), a count printed for the wrong CPU fails the
// first check and a CPU counting the machine's faults the second; where
// they take more, the first says less (they may fill any CPU's count).
TEST(Cpustat, PinnedChildsFaultsLandOnItsCpu) {
    std::vector<int> cpus = usable_cpus();
    if (cpus.size() < 2)
        GTEST_SKIP() << "needs two CPUs to tell a busy one from an idle one";
    int busy = cpus.back();
    // A machine too busy to give the child its faults' CPU time (about
    // 50 ms) in the window gets a longer window.
    for (int rounds : {8, 16, 32}) {
        auto *shared = static_cast<FaultingChild *>(mmap(nullptr, sizeof(FaultingChild),
                                                         PROT_READ | PROT_WRITE,
                                                         MAP_SHARED | MAP_ANONYMOUS, -1, 0));
        ASSERT_NE(shared, MAP_FAILED);
        new (shared) FaultingChild;
        pid_t child = start_faulting_child(busy, shared);
        const double interval = 0.25;
        long long machine_before = machine_faults();
        int64_t launched = monotonic_ns();
        Result r = run({"-n", "-c", "page-faults,sys", "0.25", std::to_string(rounds)},
                       {.watch = [&](const std::string &out) {
                           if (size_t(std::count(out.begin(), out.end(), '\n')) >= cpus.size())
                               shared->go.store(true);
                       }});
        long long machine_after = machine_faults();
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        long faults = shared->faults.load();
        int64_t done = shared->done_ns.load();
        munmap(shared, sizeof(FaultingChild));
        ASSERT_EQ(r.status, 0) << r.err;
        std::vector<std::string> ls = lines(r.out);
        ASSERT_EQ(ls.size(), rounds * cpus.size() + 1) << r.out;
        int64_t last_deadline = launched + int64_t(rounds * interval * 1e9);
        if (done == 0 || done >= last_deadline) {
            std::printf("the child did not take its %ld faults within %d rounds of %.2f s%s\n",
                        kFaults, rounds, interval, rounds < 32 ? "; again, longer" : "");
            continue;
        }
        long long on_busy = 0, all = 0;
        for (size_t round = 0; round < size_t(rounds); ++round)
            for (size_t i = 0; i < cpus.size(); ++i) {
                Line l = parse(ls[round * cpus.size() + i]);
                all += l.values[0];
                if (l.cpu == busy && round > 0)
                    on_busy += l.values[0];
            }
        std::printf("child: %ld faults; its cpu %d counted %lld in rounds 2-%d; all cpus %lld, "
                    "the machine %lld\n",
                    faults, busy, on_busy, rounds, all, machine_after - machine_before);
        EXPECT_GE(faults, kFaults);
        EXPECT_GE(on_busy, faults) << r.out;
        // perf counts a few faults that vmstat does not (outside any
        // mapping); a CPU that counted the machine's would double it.
        if (machine_before >= 0 && machine_after >= 0) {
            EXPECT_LE(double(all), 1.1 * double(machine_after - machine_before)) << r.out;
        }
        return;
    }
    FAIL() << "the child never got the CPU time for " << kFaults << " faults in 8 s";
}

} // namespace
