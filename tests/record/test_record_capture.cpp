// SPDX-License-Identifier: MIT
// `cpcprof record --capture ring -- CMD` and its automatic use: a command
// the agent cannot be loaded into (static) or must not be (its own
// seccomp filter, a raw reset of SIGTRAP) is sampled through the kernel's
// sample rings, opened on the child before its exec.  Its output and
// status are those of the bare run, its processes and functions are in
// the profile, and it says in one line how it was sampled.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

std::vector<std::string> recorded(const std::vector<std::string> &options,
                                  const std::vector<std::string> &cmd) {
    std::vector<std::string> all{"record", "-o", "out.cpcprof"};
    all.insert(all.end(), options.begin(), options.end());
    all.emplace_back("--");
    all.insert(all.end(), cmd.begin(), cmd.end());
    return all;
}

// Whether the kernel tells a pidfd's holder the exit status of a process
// that another has reaped (PIDFD_INFO_EXIT, Linux 6.15).
bool kernel_keeps_exit_status() {
    struct Info {
        uint64_t mask, cgroupid;
        uint32_t ids[11];
        int32_t exit_code;
    } info{};
    pid_t pid = fork();
    if (pid == 0)
        _exit(100);
    int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    int status = 0;
    waitpid(pid, &status, 0);
    info.mask = uint64_t(1) << 3;
    bool kept = pidfd >= 0 && ioctl(pidfd, _IOWR(0xFF, 11, Info), &info) == 0 &&
                (info.mask & (uint64_t(1) << 3)) != 0 && info.exit_code == status;
    if (pidfd >= 0)
        close(pidfd);
    return kept;
}

size_t samples_of(const Profile &p, int pid) {
    size_t n = 0;
    for (const SampleCopy &s : p.samples)
        n += s.pid == pid;
    return n;
}

} // namespace

// Static: no agent can be loaded, so the rings sample it (auto).
TEST(RecordCapture, AStaticProgramIsSampledThroughTheRings) {
    TempDir dir;
    RunResult bare = run_program(dir, {STATIC_EXE, "3"});
    ASSERT_EQ(bare.status, 3) << bare.err;
    RunResult r = run_cpcprof(dir, recorded({"-F", "1000"}, {STATIC_EXE, "3"}));
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, real_path(STATIC_EXE) +
                                                " is statically linked: the profiler cannot be "
                                                "loaded into it, so it is sampled through the "
                                                "kernel's sample rings"),
              1u)
        << r.err;
    EXPECT_EQ(r.err.find("unsampled"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *proc = process_running(p, "record_static_exit");
    ASSERT_NE(proc, nullptr) << "the static program is a process of the profile";
    EXPECT_EQ(proc->exit_status, std::optional<int>(3));
    EXPECT_EQ(proc->info.argv, (std::vector<std::string>{STATIC_EXE, "3"}));
    // About 20 ms of CPU at 1 kHz: its samples, named from its own
    // symbols, with no time counted unsampled.
    ProfileSymbols syms(*p.reader);
    size_t in_main = samples_in(p, syms, "main", proc->info.pid);
    std::printf("static target: %zu samples, %zu in main\n", samples_of(p, proc->info.pid),
                in_main);
    EXPECT_GE(in_main, 8u) << p.samples.size() << " samples";
    EXPECT_EQ(p.reader->accounting_total().unsampled_ns, 0u);
    EXPECT_EQ(p.reader->accounting_total().taken,
              p.samples.size() + p.reader->accounting_total().dropped);
}

// Where perf_event_open is refused (a container), the rings cannot be
// had either: the static program runs unsampled, said in one line, and
// its CPU time is counted as unsampled.
TEST(RecordCapture, InAContainerAStaticProgramRunsUnsampledWithOneLine) {
    TempDir dir;
    RunResult r = run_cpcprof_in_container(dir, recorded({}, {STATIC_EXE, "3"}));
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(count_lines_containing(r.err, "is statically linked: the profiler cannot be loaded "
                                            "into it, so it runs unsampled"),
              1u)
        << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_GE(p.reader->accounting_total().unsampled_ns, 15'000'000u);
    // Forced, the rings are refused with the reason, and nothing runs.
    TempDir forced;
    r = run_cpcprof_in_container(forced, recorded({"--capture", "ring"}, {STATIC_EXE, "3"}));
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("cannot use --capture ring"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "the command must not run";
}

// --capture ring follows forks and execs: a dynamically linked parent
// and the static program it execs in a fork child are both sampled.  The
// child runs 150 ms of CPU time: the rings are read every 50 ms at most,
// and a child reaped before the recorder reads its fork has no pidfd to
// keep its status (the docs say so).
TEST(RecordCapture, RingsFollowForksAndExecs) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, STATIC_EXE, "4", "150"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 4) << bare.err;
    RunResult r = run_cpcprof(dir, recorded({"--capture", "ring", "-F", "1000"}, cmd));
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(r.err.find("statically linked"), std::string::npos)
        << "the rings sample it like any other: nothing to say\n"
        << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *parent = process_running(p, "record_spawn_child");
    const storage::ProcessRecord *child = process_running(p, "record_static_exit");
    ASSERT_NE(parent, nullptr);
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->info.ppid, parent->info.pid);
    // The parent, the recorder's child, is reaped by the recorder; the
    // child is reaped by its parent at once (the rings say only that it
    // ended): its status is the kernel's to keep for the recorder's pidfd.
    EXPECT_EQ(parent->exit_status, std::optional<int>(4));
    if (kernel_keeps_exit_status())
        EXPECT_EQ(child->exit_status, std::optional<int>(4));
    else
        std::printf("not checked: the child's exit status (this kernel keeps no exit status "
                    "for a pidfd once the process is reaped; Linux 6.15 does)\n");
    ProfileSymbols syms(*p.reader);
    EXPECT_GE(samples_in(p, syms, "main", child->info.pid), 8u);
    std::set<int> pids;
    for (const SampleCopy &s : p.samples)
        pids.insert(s.pid);
    EXPECT_EQ(pids.count(parent->info.pid) + pids.count(child->info.pid), pids.size())
        << "samples of the two processes only (none of the recorder's before the exec)";

    // --no-children: the command's process alone.
    TempDir alone;
    r = run_cpcprof(alone, recorded({"--capture", "ring", "--no-children"}, cmd));
    EXPECT_EQ(r.status, 4) << r.err;
    Profile q = load_profile(alone.file("out.cpcprof"));
    ASSERT_TRUE(q) << q.error;
    EXPECT_EQ(process_running(q, "record_static_exit"), nullptr);
    ASSERT_NE(process_running(q, "record_spawn_child"), nullptr);
    for (const SampleCopy &s : q.samples)
        EXPECT_EQ(s.pid, process_running(q, "record_spawn_child")->info.pid);
}

// A program whose own seccomp filter refuses perf_event_open: the agent
// cannot open counters inside it, the rings (opened by the recorder,
// outside the filter) can.
TEST(RecordCapture, AProgramWhoseFilterRefusesCountersIsSampledByTheRings) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--seccomp", "eperm", TRAPPER_EXE, "dfl-before"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 0) << bare.err;
    RunResult agent = run_cpcprof(dir, recorded({"--capture", "agent"}, cmd));
    EXPECT_EQ(agent.status, 0) << agent.err;
    EXPECT_NE(agent.err.find("runs under a seccomp filter; not sampled (record --capture ring "
                             "samples it through the kernel's sample rings, from outside the "
                             "filter)"),
              std::string::npos)
        << "the agent says it cannot sample under the filter, and what would:\n"
        << agent.err;
    TempDir ringdir;
    RunResult r = run_cpcprof(ringdir, recorded({"--capture", "ring", "-F", "1000"}, cmd));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(r.err.find("seccomp"), std::string::npos) << r.err;
    Profile p = load_profile(ringdir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *trapper = process_running(p, "record_trapper");
    ASSERT_NE(trapper, nullptr);
    ProfileSymbols syms(*p.reader);
    // 0.4 s of spinning at 1 kHz; half is a lenient floor on a busy host
    // (samples follow the CPU time the program got).
    EXPECT_GE(samples_in(p, syms, "tr_spin", trapper->info.pid), 200u) << p.samples.size();
    EXPECT_EQ(p.reader->accounting_total().unsampled_ns, 0u);
}

// The same without asking: where the recorder may open the rings, a
// process whose agent finds a filter is sampled through them on its own,
// said in one line, once in the profile, with its exit status.
TEST(RecordCapture, AProgramUnderItsOwnFilterIsSampledByTheRingsWithoutAsking) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--seccomp", "eperm", TRAPPER_EXE, "dfl-before"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 0) << bare.err;
    RunResult r = run_cpcprof(dir, recorded({"-F", "1000"}, cmd));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, "runs under a seccomp filter; sampled through the "
                                            "kernel's sample rings, from outside the filter"),
              1u)
        << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *trapper = process_running(p, "record_trapper");
    ASSERT_NE(trapper, nullptr) << "the process as it runs: the program it exec'd";
    EXPECT_EQ(trapper->exit_status, std::optional<int>(0));
    size_t rows = 0;
    for (const storage::ProcessRecord &proc : p.reader->processes())
        rows += proc.info.pid == trapper->info.pid;
    EXPECT_EQ(rows, 1u) << "said once, by the rings (its agent said no hello)";
    ProfileSymbols syms(*p.reader);
    // 0.4 s of CPU time spinning at 1 kHz: half is a lenient floor on a
    // busy host; a second ring on the process would double them.
    size_t spun = samples_in(p, syms, "tr_spin", trapper->info.pid);
    EXPECT_GE(spun, 200u) << p.samples.size();
    EXPECT_LE(spun, 520u) << "0.4 s of CPU time at 1 kHz";
    EXPECT_EQ(p.reader->accounting_total().unsampled_ns, 0u);
}

// A filtered program that forks once its rings are open (after 0.2 s):
// its child is followed by its parent's rings (the kernel's inheritance),
// not by a second ring of its own; each spins 0.3 s of CPU time in its
// own function, and the child's exit status (its parent reaps it) comes
// from its agent.
TEST(RecordCapture, AFilteredProgramsForkChildIsSampledOnceThroughItsParentsRings) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--seccomp", "eperm", FORKER_EXE,
                                 "fork",          "exit",      "late"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 0) << bare.err;
    RunResult r = run_cpcprof(dir, recorded({"-F", "1000"}, cmd));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count_lines_containing(r.err, "runs under a seccomp filter; sampled through"), 2u)
        << "the forker and its child:\n"
        << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    std::map<int, int> rows;
    int parent = 0, child = 0;
    for (const storage::ProcessRecord &proc : p.reader->processes()) {
        if (proc.info.exe.find("record_forker") == std::string::npos)
            continue;
        ++rows[proc.info.pid];
        if (samples_in(p, syms, "fk_parent_busy", proc.info.pid) > 0)
            parent = proc.info.pid;
        if (samples_in(p, syms, "fk_child_busy", proc.info.pid) > 0) {
            child = proc.info.pid;
            EXPECT_EQ(proc.exit_status, std::optional<int>(3)) << "its agent's bye";
        }
    }
    ASSERT_NE(parent, 0) << r.err;
    ASSERT_NE(child, 0) << r.err;
    EXPECT_NE(parent, child);
    for (const auto &[pid, n] : rows)
        EXPECT_EQ(n, 1) << "pid " << pid;
    for (auto [fn, pid] : {std::pair<const char *, int>{"fk_parent_busy", parent},
                           std::pair<const char *, int>{"fk_child_busy", child}}) {
        size_t n = samples_in(p, syms, fn, pid);
        EXPECT_GE(n, 150u) << fn;
        EXPECT_LE(n, 400u) << fn << ": 0.3 s of CPU time at 1 kHz, not counted twice";
    }
}

// A program that resets SIGTRAP with its own system call instruction (Go's
// runtime) at once: the agent's overflow signal could kill it before the
// agent sees the change; the rings send it no signal at all.
TEST(RecordCapture, ARawSigtrapResetIsHarmlessUnderTheRings) {
    TempDir dir;
    std::vector<std::string> cmd{TRAPPER_EXE, "raw-all-now"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 0) << bare.err;
    ASSERT_NE(bare.out.find("foreign 0"), std::string::npos) << bare.out;
    for (int round = 0; round < 3; ++round) {
        TempDir d;
        RunResult r = run_cpcprof(d, recorded({"--capture", "ring", "-F", "2000"}, cmd));
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, bare.out) << "no foreign signal reached it";
        Profile p = load_profile(d.file("out.cpcprof"));
        ASSERT_TRUE(p) << p.error;
        ProfileSymbols syms(*p.reader);
        EXPECT_GE(samples_in(p, syms, "tr_spin"), 200u) << p.samples.size();
    }
}

// A static program that a sampled (dynamically linked) process execs: its
// agent says so before the exec, and the recorder opens the kernel's rings
// on it then.  Its first moments (before the recorder has read the
// agent's word) may be missed; the rest is sampled.
TEST(RecordCapture, AStaticProgramExecdByASampledProcessIsSampledByTheRings) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, STATIC_EXE, "4", "300"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 4) << bare.err;
    RunResult r = run_cpcprof(dir, recorded({"-F", "1000"}, cmd));
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, "execs " + real_path(STATIC_EXE) +
                                                ", which is statically linked: the profiler "
                                                "cannot be loaded into it; sampled through the "
                                                "kernel's sample rings instead"),
              1u)
        << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *child = process_running(p, "record_static_exit");
    ASSERT_NE(child, nullptr);
    ProfileSymbols syms(*p.reader);
    // 300 ms of CPU at 1 kHz; half of it is a floor that leaves the first
    // moments and a busy host their due.
    EXPECT_GE(samples_in(p, syms, "main", child->info.pid), 150u) << p.samples.size();
    EXPECT_EQ(p.reader->accounting_total().unsampled_ns, 0u);
    EXPECT_EQ(p.reader->accounting_total().taken,
              p.samples.size() + p.reader->accounting_total().dropped);
    // --capture agent keeps it unsampled, said so.
    TempDir agent;
    r = run_cpcprof(agent, recorded({"--capture", "agent"}, cmd));
    EXPECT_EQ(r.status, 4) << r.err;
    EXPECT_EQ(count_lines_containing(r.err, "which is statically linked: the profiler cannot be "
                                            "loaded into it; not sampled"),
              1u)
        << r.err;
}

TEST(RecordCapture, BadCaptureChoicesAreRefused) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "--capture", "kernel", "--", "true"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--capture takes auto, agent or ring, not 'kernel'"), std::string::npos)
        << r.err;
    r = run_cpcprof(dir, {"record", "--capture", "agent", "-p", "1"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--capture agent needs a command"), std::string::npos) << r.err;
    // A command that cannot be run: said, and no file.
    r = run_cpcprof(dir, {"record", "--capture", "ring", "-o", dir.file("out.cpcprof"), "--",
                          dir.file("no-such-program")});
    EXPECT_EQ(r.status, 127) << r.err;
    EXPECT_NE(r.err.find("cannot run"), std::string::npos) << r.err;
    EXPECT_NE(access(dir.file("out.cpcprof").c_str(), F_OK), 0);
}

// A user whom perf_event_paranoid keeps from the kernel's frames: the
// user's part of each stack is recorded, and the profile says once why the
// kernel's is missing (report shows it).
TEST(RecordCapture, WhereTheKernelsFramesAreRefusedTheProfileSaysWhy) {
    std::string paranoid = read_file("/proc/sys/kernel/perf_event_paranoid");
    if (geteuid() != 0)
        GTEST_SKIP() << "becoming another user needs root";
    if (std::atoi(paranoid.c_str()) <= 1)
        GTEST_SKIP() << "perf_event_paranoid " << paranoid
                     << " lets every user sample the kernel: nothing is refused";
    TempDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    std::string out = dir.file("out.cpcprof");
    Captured r = run_capturing({CPCPROF_EXE, "record", "-F", "1000", "--capture", "ring", "-o", out,
                                "--", TRAPPER_EXE, "dfl-before"},
                               {.uid = 65534});
    EXPECT_EQ(r.status, 0) << r.err;
    std::string why = "the kernel's part of the stacks is not recorded: perf_event_paranoid is " +
                      std::to_string(std::atoi(paranoid.c_str()));
    EXPECT_EQ(count_lines_containing(r.err, why), 1u) << r.err;
    Profile p = load_profile(out);
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    EXPECT_GE(samples_in(p, syms, "tr_spin"), 200u) << p.samples.size();
    RunResult report = run_cpcprof(dir, {"report", out});
    EXPECT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.out.find("# notice: recording: " + why), std::string::npos) << report.out;
}
