// SPDX-License-Identifier: MIT
// `cpcprof record -p PID`: a program that already runs is recorded
// through the kernel's sample rings.  It must not notice (same output and
// exit status, no signal), its threads started after the attach are in
// the profile, its functions are named, the kernel's part of its stacks
// shows the page-fault path, and the recording ends with it, at Ctrl-C or
// after --duration, leaving it running.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

// Polls file until it holds text (at most timeout_s).
bool wait_for_text(const std::string &file, const std::string &text, int timeout_s = 20) {
    for (int i = 0; i < timeout_s * 200; ++i) {
        if (read_file(file).find(text) != std::string::npos)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

struct Attachee {
    pid_t pid = -1;
    std::string go;
};

// Starts the attachee in dir (its output in attachee.out), ready.
Attachee start_attachee(const TempDir &dir, int threads, int idle = 0) {
    Attachee a;
    a.go = dir.file("go");
    a.pid = start_program(dir, {ATTACHEE_EXE, a.go, std::to_string(threads), std::to_string(idle)},
                          {.out = "attachee.out", .err = "attachee.err"});
    EXPECT_TRUE(wait_for_text(dir.file("attachee.out"), "ready")) << "the attachee did not start";
    return a;
}

RunResult finish_attachee(const TempDir &dir, const Attachee &a) {
    return wait_program(dir, a.pid, {.out = "attachee.out", .err = "attachee.err"}, 60);
}

} // namespace

TEST(RecordAttach, ARunningProcessIsRecordedWithoutNoticingAndItsNewThreadsToo) {
    TempDir dir;
    // The same program alone: what it prints and how it ends.
    {
        TempDir bare;
        std::ofstream(bare.file("go")) << "";
        RunResult r = run_program(bare, {ATTACHEE_EXE, bare.file("go"), "3"});
        ASSERT_EQ(r.status, 0) << r.err;
        ASSERT_NE(r.out.find("done"), std::string::npos);
    }
    Attachee a = start_attachee(dir, 3);
    pid_t rec =
        start_cpcprof(dir, {"record", "-p", std::to_string(a.pid), "-o", dir.file("out.cpcprof")});
    ASSERT_TRUE(wait_for_text(dir.file("stderr"), "recording process"))
        << "the recorder did not attach:\n"
        << read_file(dir.file("stderr"));
    std::ofstream(a.go) << "";
    RunResult target = finish_attachee(dir, a);
    RunResult r = wait_cpcprof(dir, rec, 60);
    EXPECT_EQ(target.status, 0) << "the attached program failed or saw a signal\n" << target.err;
    EXPECT_EQ(target.out.substr(target.out.find('\n') + 1),
              "progress 1\nprogress 2\nprogress 3\nprogress 4\ndone\n");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(r.timed_out) << "the recording did not end with the process";

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    std::set<int> tids;
    for (const SampleCopy &s : p.samples) {
        EXPECT_EQ(s.pid, a.pid);
        tids.insert(s.tid);
    }
    EXPECT_EQ(tids.size(), 4u) << "the main thread and the three it started after the attach";
    ProfileSymbols syms(*p.reader);
    EXPECT_GT(samples_in(p, syms, "att_compute"), 20u) << p.samples.size() << " samples";
    // The copied user stacks, unwound by the recorder (dwarf, the
    // default): complete, and through the threads' own functions.
    size_t complete = 0, under_rounds = 0, in_compute = 0;
    for (const SampleCopy &s : p.samples) {
        complete += s.complete;
        std::vector<std::string> stack = syms.stack(s.view());
        if (std::find(stack.begin(), stack.end(), "att_compute") == stack.end())
            continue;
        ++in_compute;
        under_rounds += std::find(stack.begin(), stack.end(), "rounds") != stack.end();
    }
    EXPECT_GE(double(complete), 0.95 * double(p.samples.size()));
    EXPECT_EQ(under_rounds, in_compute) << "att_compute is called by rounds only";
    EXPECT_EQ(p.reader->accounting_total().taken,
              p.samples.size() + p.reader->accounting_total().dropped);

    // The kernel's frames, as report names them from /proc/kallsyms.
    RunResult report = run_cpcprof(dir, {"report", dir.file("out.cpcprof")});
    ASSERT_EQ(report.status, 0) << report.err;
    std::string paranoid = read_file("/proc/sys/kernel/perf_event_paranoid");
    if (geteuid() != 0 && std::atoi(paranoid.c_str()) > 1)
        GTEST_SKIP() << "the kernel's frames are not sampled here (perf_event_paranoid " << paranoid
                     << ", not root)";
    EXPECT_NE(report.out.find("[kernel]"), std::string::npos) << report.out;
    bool fault_path = report.out.find("page_fault") != std::string::npos ||
                      report.out.find("clear_page") != std::string::npos ||
                      report.out.find("handle_mm_fault") != std::string::npos;
    EXPECT_TRUE(fault_path) << "the page faults of att_touch_pages:\n" << report.out;
}

// A process in a mount namespace of its own (as in a container): its
// program is on a file system that the recorder's namespace does not
// have, and it is gone with the namespace when the process ends, before
// the profile is symbolized.  Its functions are named all the same.
TEST(RecordAttach, AProcessInAnotherMountNamespaceIsNamedFromItsOwnFiles) {
    if (geteuid() != 0)
        GTEST_SKIP() << "a mount namespace of its own (unshare -m) needs root here";
    if (access("/usr/bin/unshare", X_OK) != 0)
        GTEST_SKIP() << "/usr/bin/unshare (util-linux) is not installed";
    TempDir dir;
    std::string inside = dir.file("inside");
    ASSERT_EQ(mkdir(inside.c_str(), 0755), 0);
    std::string exe = inside + "/attachee-ns", go = dir.file("go");
    // Mounts of a new namespace are private: the tmpfs and the copy on it
    // are seen by the attachee only.
    std::string script = "mount -t tmpfs tmpfs '" + inside + "' && cp '" + ATTACHEE_EXE + "' '" +
                         exe + "' && exec '" + exe + "' '" + go + "' 1 0";
    pid_t pid = start_program(dir, {"/usr/bin/unshare", "-m", "/bin/sh", "-c", script},
                              {.out = "attachee.out", .err = "attachee.err"});
    ASSERT_TRUE(wait_for_text(dir.file("attachee.out"), "ready"))
        << "the attachee did not start in its namespace: " << read_file(dir.file("attachee.err"));
    ASSERT_NE(access(exe.c_str(), F_OK), 0) << "the copy is seen outside its namespace";
    pid_t rec =
        start_cpcprof(dir, {"record", "-p", std::to_string(pid), "-o", dir.file("out.cpcprof")});
    ASSERT_TRUE(wait_for_text(dir.file("stderr"), "recording process"))
        << read_file(dir.file("stderr"));
    std::ofstream(go) << "";
    RunResult target = wait_program(dir, pid, {.out = "attachee.out", .err = "attachee.err"}, 60);
    RunResult r = wait_cpcprof(dir, rec, 60);
    EXPECT_EQ(target.status, 0) << target.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("without symbols: " + exe), std::string::npos) << r.err;

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ASSERT_EQ(p.reader->processes().size(), 1u);
    EXPECT_EQ(p.reader->processes()[0].info.exe, exe) << "named by its path in its namespace";
    // The names the profile holds (the file is gone now): att_compute,
    // called by rounds only, from the attachee's own source.
    auto callers = [&](const std::string &file) {
        RunResult report =
            run_cpcprof(dir, {"report", file, "--callers", "att_compute", "--format", "csv"});
        EXPECT_EQ(report.status, 0) << report.err;
        return report.out;
    };
    auto check_names = [&](const std::string &csv) {
        std::map<int, std::map<std::string, long>> by_depth; // depth -> function -> samples
        std::istringstream rows(csv);
        std::string row;
        std::getline(rows, row); // header
        while (std::getline(rows, row)) {
            std::vector<std::string> f;
            std::istringstream cells(row);
            for (std::string c; std::getline(cells, c, ',');)
                f.push_back(c);
            ASSERT_GE(f.size(), 6u) << row;
            by_depth[std::stoi(f[0])][f[1]] += std::stol(f[5]);
        }
        EXPECT_GT(by_depth[1]["att_compute"], 20) << csv;
        EXPECT_EQ(by_depth[2].size(), 1u) << csv;
        EXPECT_EQ(by_depth[2]["rounds"], by_depth[1]["att_compute"]) << csv;
    };
    std::string first = callers(dir.file("out.cpcprof"));
    check_names(first);
    RunResult lines = run_cpcprof(dir, {"report", dir.file("out.cpcprof"), "--top", "0"});
    EXPECT_NE(lines.out.find("attachee.c"), std::string::npos) << lines.out;
    // Symbolized again later, without the process and its file: the
    // names stay, and it says why.
    RunResult again = run_cpcprof(dir, {"symbolize", dir.file("out.cpcprof")});
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.err.find("the earlier names of 1 module kept, its file no longer readable "
                             "here: " +
                             exe),
              std::string::npos)
        << again.err;
    EXPECT_EQ(callers(dir.file("out.cpcprof")), first);
}

// --duration ends the recording; the process runs on to its own end.
TEST(RecordAttach, DurationEndsTheRecordingAndTheProcessRunsOn) {
    TempDir dir;
    Attachee a = start_attachee(dir, 0);
    std::ofstream(a.go) << "";
    RunResult r = run_cpcprof(dir, {"record", "-q", "-p", std::to_string(a.pid), "--duration",
                                    "0.2", "-o", dir.file("out.cpcprof")});
    ASSERT_EQ(r.status, 0) << r.err;
    RunResult target = finish_attachee(dir, a);
    EXPECT_EQ(target.status, 0) << target.err;
    EXPECT_NE(target.out.find("done"), std::string::npos);
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
}

// Ctrl-C (SIGINT to the recorder) ends the recording and keeps the file.
TEST(RecordAttach, InterruptEndsTheRecordingWithAFinishedFile) {
    TempDir dir;
    Attachee a = start_attachee(dir, 1);
    pid_t rec =
        start_cpcprof(dir, {"record", "-p", std::to_string(a.pid), "-o", dir.file("out.cpcprof")});
    ASSERT_TRUE(wait_for_text(dir.file("stderr"), "recording process"));
    std::ofstream(a.go) << "";
    ASSERT_TRUE(wait_for_text(dir.file("attachee.out"), "progress 1"));
    kill(rec, SIGINT);
    RunResult r = wait_cpcprof(dir, rec, 30);
    EXPECT_EQ(r.status, 0) << r.err;
    RunResult target = finish_attachee(dir, a);
    EXPECT_EQ(target.status, 0) << "the process was harmed by the detach";
    RunResult check = run_cpcprof(dir, {"check", dir.file("out.cpcprof")});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
}

// A process of a thousand threads is attached whole (two events per
// thread here, one per CPU), each thread named in the profile.
TEST(RecordAttach, AThousandThreadsAreAttachedWhole) {
    TempDir dir;
    Attachee a = start_attachee(dir, 0, 1000);
    RunResult r = run_cpcprof(dir, {"record", "-q", "--no-symbolize", "-p", std::to_string(a.pid),
                                    "--duration", "0.05", "-o", dir.file("out.cpcprof")});
    std::ofstream(a.go) << "";
    RunResult target = finish_attachee(dir, a);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(target.status, 0) << target.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_EQ(p.reader->threads().size(), 1001u);
}

// In a container whose seccomp profile refuses perf_event_open, -p cannot
// work at all (the timer backend only serves a program's own threads):
// said in one line, with the reason, and no file.
TEST(RecordAttach, WherePerfEventOpenIsRefusedItSaysWhy) {
    TempDir dir;
    Attachee a = start_attachee(dir, 0);
    RunResult r = run_cpcprof_in_container(
        dir, {"record", "-p", std::to_string(a.pid), "-o", dir.file("out.cpcprof")});
    std::ofstream(a.go) << "";
    finish_attachee(dir, a);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("cannot attach: -p samples through perf_event_open(2)"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("EPERM"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("POSIX CPU timers"), std::string::npos)
        << "the timer backend's notice does not apply to -p:\n"
        << r.err;
    EXPECT_NE(access(dir.file("out.cpcprof").c_str(), F_OK), 0);
}

TEST(RecordAttach, BadPidsAreRefusedWithTheReason) {
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-p", "4194304", "-o", dir.file("out.cpcprof")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("4194304"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
    EXPECT_NE(access(dir.file("out.cpcprof").c_str(), F_OK), 0) << "no file for nothing";
    r = run_cpcprof(dir, {"record", "-p", "12x"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("-p takes process ids"), std::string::npos) << r.err;
    r = run_cpcprof(dir, {"record", "-p", "1", "--", "/bin/true"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("give it no command"), std::string::npos) << r.err;
}

// -a: every process of every user, named by its command; the recorder
// leaves itself out and says what it could not attribute.
TEST(RecordAttach, SystemWideRecordsEveryUsersProcessesByName) {
    if (geteuid() != 0)
        GTEST_SKIP() << "-a and a second user need root here";
    TempDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    pid_t rec = start_cpcprof(
        dir, {"record", "-a", "-F", "1000", "--duration", "120", "-o", dir.file("out.cpcprof")});
    ASSERT_TRUE(wait_for_text(dir.file("stderr"), "recording every process"))
        << read_file(dir.file("stderr"));
    // Two users' programs, each spinning 0.4 s of CPU time, under names
    // of their own (other tests may run the same program meanwhile).
    std::string mine = dir.file("spin-root"), other_user = dir.file("spin-nobody");
    for (const std::string &copy : {mine, other_user}) {
        std::ofstream(copy, std::ios::binary)
            << std::ifstream(TRAPPER_EXE, std::ios::binary).rdbuf();
        ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    }
    Captured theirs;
    std::thread other([&] { theirs = run_capturing({other_user, "dfl-before"}, {.uid = 65534}); });
    RunResult ours = run_program(dir, {mine, "dfl-before"});
    other.join();
    kill(rec, SIGINT);
    RunResult r = wait_cpcprof(dir, rec, 60);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(ours.status, 0) << ours.err;
    EXPECT_EQ(theirs.status, 0) << theirs.err;
    EXPECT_EQ(ours.out, theirs.out);

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    std::map<std::string, int> spinners; // by program
    for (const storage::ProcessRecord &pr : p.reader->processes()) {
        EXPECT_NE(pr.info.pid, rec) << "the recorder is not among the recorded";
        EXPECT_FALSE(pr.info.exe.empty()) << "process " << pr.info.pid << " unnamed";
        if (pr.info.exe == mine || pr.info.exe == other_user)
            spinners[pr.info.exe] = pr.info.pid;
    }
    ASSERT_EQ(spinners.size(), 2u) << "root's and nobody's";
    for (const auto &[exe, pid] : spinners) {
        size_t of_pid = 0;
        for (const SampleCopy &s : p.samples)
            of_pid += s.pid == pid;
        EXPECT_GE(samples_in(p, syms, "tr_spin", pid), 200u)
            << "0.4 s of CPU at 1 kHz, " << exe << ": " << of_pid << " samples of the process, "
            << p.reader->accounting_total().dropped << " dropped in all\n"
            << read_file(dir.file("stderr"));
    }
    // Every sample says its processor, as the kernel's ring gave it: the
    // two programs ran at once, on two processors where there are two.
    const std::set<int> cpus = cpus_of(p);
    EXPECT_GE(*cpus.begin(), 0) << "a sample does not say its processor";
    EXPECT_LT(*cpus.rbegin(), sysconf(_SC_NPROCESSORS_CONF));
    if (usable_cpus() >= 2) {
        EXPECT_GE(cpus.size(), 2u) << "a whole machine's samples on one processor only";
    }
}

// -a --cpu 0: only what ran on processor 0, and every sample says so; a
// program pinned to processor 0 is there, one pinned elsewhere is not.
TEST(RecordAttach, SystemWideOnOneProcessorKeepsOnlyItsSamples) {
    if (geteuid() != 0)
        GTEST_SKIP() << "-a needs root here";
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        GTEST_SKIP() << "one processor online: nothing runs elsewhere to leave out";
    TempDir dir;
    pid_t rec = start_cpcprof(dir, {"record", "-a", "--cpu", "0", "-F", "1000", "--duration", "120",
                                    "-o", dir.file("out.cpcprof")});
    ASSERT_TRUE(wait_for_text(dir.file("stderr"), "recording every process"))
        << read_file(dir.file("stderr"));
    // The same program under two names, each pinned to one processor.
    std::string on0 = dir.file("spin-cpu0"), on1 = dir.file("spin-cpu1");
    for (const std::string &copy : {on0, on1}) {
        std::ofstream(copy, std::ios::binary)
            << std::ifstream(TRAPPER_EXE, std::ios::binary).rdbuf();
        ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    }
    RunResult a = run_program(dir, {"/usr/bin/taskset", "-c", "0", on0, "dfl-before"});
    RunResult b = run_program(dir, {"/usr/bin/taskset", "-c", "1", on1, "dfl-before"});
    kill(rec, SIGINT);
    RunResult r = wait_cpcprof(dir, rec, 60);
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;

    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ASSERT_FALSE(p.samples.empty());
    for (const SampleCopy &c : p.samples)
        ASSERT_EQ(c.cpu, 0) << "a sample of process " << c.pid << " from another processor";
    ProfileSymbols syms(*p.reader);
    std::map<std::string, int> spinners;
    for (const storage::ProcessRecord &pr : p.reader->processes())
        if (pr.info.exe == on0 || pr.info.exe == on1)
            spinners[pr.info.exe] = pr.info.pid;
    ASSERT_EQ(spinners.count(on0), 1u) << "the program pinned to processor 0 is missing";
    EXPECT_GE(samples_in(p, syms, "tr_spin", spinners[on0]), 200u) << "0.4 s of CPU at 1 kHz";
    if (spinners.count(on1) != 0) {
        EXPECT_EQ(samples_in(p, syms, "tr_spin", spinners[on1]), 0u)
            << "the program pinned to processor 1 was sampled on processor 0";
    }
}

// Where the caller may not see every process, -a stops with what would
// allow it, before any file is made.
TEST(RecordAttach, SystemWideWithoutLeaveSaysWhatWouldAllowIt) {
    std::string paranoid = read_file("/proc/sys/kernel/perf_event_paranoid");
    if (geteuid() != 0)
        GTEST_SKIP() << "becoming a user without leave needs root";
    if (std::atoi(paranoid.c_str()) <= 0)
        GTEST_SKIP() << "perf_event_paranoid " << paranoid << " lets every user profile the system";
    TempDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    Captured r = run_capturing(
        {CPCPROF_EXE, "record", "-a", "--duration", "1", "-o", dir.file("out.cpcprof")},
        {.uid = 65534});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("cannot profile the whole system: it needs root, CAP_PERFMON or "
                         "kernel.perf_event_paranoid at most 0 (it is " +
                         std::to_string(std::atoi(paranoid.c_str())) + ")"),
              std::string::npos)
        << r.err;
    EXPECT_NE(access(dir.file("out.cpcprof").c_str(), F_OK), 0);
}
