// SPDX-License-Identifier: MIT
// Programs the profiler cannot sample, or must not disturb: statically
// linked programs, programs under a seccomp filter, programs near their
// descriptor limit; and what cpcprof record costs a process at start.
// Each runs bare and under `cpcprof record`, and its own output and status
// must be the same.
#include "tests/record/record_harness.h"

#include "profiler/record/cfi_cache_dir.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

std::vector<std::string> recorded(const std::vector<std::string> &cmd) {
    std::vector<std::string> all{CPCPROF_EXE, "record",      "-q", "--no-symbolize",
                                 "-o",        "out.cpcprof", "--"};
    all.insert(all.end(), cmd.begin(), cmd.end());
    return all;
}

} // namespace

// --capture agent: a static program cannot take the agent (by default
// the kernel's rings sample it: test_record_capture).
TEST(RecordStatic, UnderCaptureAgentTargetRunsUnsampledWithOneLine) {
    TempDir dir;
    RunResult bare = run_program(dir, {STATIC_EXE, "3"});
    ASSERT_EQ(bare.status, 3) << bare.err;
    std::vector<std::string> cmd = recorded({STATIC_EXE, "3"});
    cmd.insert(cmd.begin() + 2, {"--capture", "agent"});
    RunResult r = run_program(dir, cmd);
    EXPECT_EQ(r.status, bare.status) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, "is statically linked"), 1u) << r.err;
    EXPECT_NE(r.err.find(real_path(STATIC_EXE)), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    const storage::ProcessRecord *proc = process_running(p, "record_static_exit");
    ASSERT_NE(proc, nullptr) << "the static program is a process of the profile";
    EXPECT_EQ(proc->exit_status, std::optional<int>(3));
    // Its CPU time (about 20 ms of spinning) is the recording's unsampled
    // time, and the summary says so.
    uint64_t unsampled = p.reader->accounting_total().unsampled_ns;
    std::printf("static target: %.1f ms unsampled\n", double(unsampled) / 1e6);
    EXPECT_GE(unsampled, 15'000'000u);
    EXPECT_LT(unsampled, 2'000'000'000u);
    EXPECT_NE(r.err.find("unsampled"), std::string::npos) << r.err;
}

TEST(RecordStatic, ExecdChildIsNamedNotTakenForSilent) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, STATIC_EXE, "4"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 4) << bare.err;
    RunResult r = run_program(dir, recorded(cmd));
    EXPECT_EQ(r.status, bare.status) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, "which is statically linked"), 1u) << r.err;
    EXPECT_NE(r.err.find("execs " + real_path(STATIC_EXE)), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
}

TEST(RecordStatic, PosixSpawnedChildIsNamed) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--posix-spawn", STATIC_EXE, "6"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 6) << bare.err;
    RunResult r = run_program(dir, recorded(cmd));
    EXPECT_EQ(r.status, bare.status) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(count_lines_containing(r.err, "runs " + real_path(STATIC_EXE) +
                                                ", which is statically linked"),
              1u)
        << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
}

class RecordSeccomp : public ::testing::TestWithParam<const char *> {};

// The parent installs the filter and starts a (dynamically linked) child:
// both run under it.  The child's exit status reaches the profile through
// its agent, which made no perf_event_open call.
TEST_P(RecordSeccomp, ChildUnharmedAndItsExitRecorded) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--seccomp", GetParam(),
                                 SPAWN_CHILD_EXE, "--exit",    "5"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 5) << bare.out << bare.err;
    RunResult r = run_program(dir, recorded(cmd));
    EXPECT_EQ(r.status, bare.status) << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(r.out.find("killed"), std::string::npos) << r.out;
    // One line for the child (its fork image and its exec'd image say it
    // once between them); the parent was sampled before its filter.  The
    // child exits at once: the rings opened from outside the filter sample
    // it where they open before its end ("sampled through the kernel's
    // sample rings"), else it is "not sampled" and says why; either once.
    std::vector<std::string> lines = lines_with(r.err, "cpcprof: process ");
    size_t seccomp_lines = 0;
    for (const std::string &l : lines) {
        bool said = l.find("runs under a seccomp filter; not sampled") != std::string::npos ||
                    l.find("runs under a seccomp filter; sampled through the kernel's sample "
                           "rings") != std::string::npos;
        seccomp_lines += said;
    }
    EXPECT_EQ(seccomp_lines, 1u) << r.err;
    EXPECT_EQ(r.err.find("stopped reporting"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    size_t with_status = 0;
    for (const storage::ProcessRecord &proc : p.reader->processes()) {
        EXPECT_TRUE(proc.exit_status.has_value() || proc.killed_by_signal.has_value())
            << "pid " << proc.info.pid << " " << proc.info.exe;
        EXPECT_FALSE(proc.killed_by_signal.has_value()) << "pid " << proc.info.pid;
        with_status += proc.exit_status == std::optional<int>(5);
    }
    EXPECT_EQ(with_status, 2u) << "the child (exit 5) and the parent (its status)";
}

// A sampled process installs a filter, then its fork child forks again
// without exec: each process once in the profile, with its status.
TEST_P(RecordSeccomp, ForkTreeUnderFilterRecordedOnce) {
    TempDir dir;
    std::vector<std::string> cmd{SPAWN_CHILD_EXE, "--seccomp", GetParam(), "--fork2"};
    RunResult bare = run_program(dir, cmd);
    ASSERT_EQ(bare.status, 3) << bare.out << bare.err;
    RunResult r = run_program(dir, recorded(cmd));
    EXPECT_EQ(r.status, bare.status) << r.err;
    EXPECT_EQ(r.out, bare.out);
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    std::map<int, int> rows;
    for (const storage::ProcessRecord &proc : p.reader->processes()) {
        ++rows[proc.info.pid];
        EXPECT_EQ(proc.exit_status, std::optional<int>(3)) << "pid " << proc.info.pid;
    }
    EXPECT_EQ(rows.size(), 3u);
    for (const auto &[pid, n] : rows)
        EXPECT_EQ(n, 1) << "pid " << pid;
    EXPECT_EQ(count_lines_containing(r.err, "runs under a seccomp filter"), 2u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Filters, RecordSeccomp, ::testing::Values("kill", "eperm"));

// 1,000 threads under a 1,024-descriptor limit, then 200 files of the
// program's own: the profiler keeps to its budget, and the threads it
// could not give counters are counted and said, not written into the
// program's stderr.
TEST(RecordDescriptors, ThousandThreadsUnderLimitKeepProgramFiles) {
    TempDir dir;
    std::vector<std::string> cmd{FD_THREADS_EXE, "1000", "200"};
    RunResult bare = run_program(dir, cmd, {.nofile = 1024});
    ASSERT_EQ(bare.status, 0) << bare.out << bare.err;
    RunResult r = run_program(dir, recorded(cmd), {.nofile = 1024});
    EXPECT_EQ(r.status, bare.status) << r.out << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(r.err.find("libcpc"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Too many open files"), std::string::npos) << r.err;
    std::smatch m;
    std::regex said("(\\d+) threads? ran without counters[^:]*: ([\\d.]+) ms of their CPU time");
    ASSERT_TRUE(std::regex_search(r.err, m, said)) << r.err;
    unsigned unsampled = std::stoul(m[1]);
    EXPECT_GT(unsampled, 0u);
    EXPECT_LT(unsampled, 1000u) << "threads within the budget are sampled";
    // Each worker spins 1 ms of its own CPU time before it waits.
    EXPECT_GE(std::stod(m[2]), 0.9 * unsampled) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    std::set<int> sampled_tids;
    for (const SampleCopy &s : p.samples)
        sampled_tids.insert(s.tid);
    EXPECT_LE(sampled_tids.size(), 1000u - unsampled + 1) << "the unsampled have no samples";
}

// The same where perf_event_open is refused: libcpc's POSIX CPU timers
// take no descriptor, so every thread is sampled, whatever the limit.
TEST(RecordDescriptors, ThousandThreadsOnTheTimerBackendAllHaveCounters) {
    TempDir dir;
    std::vector<std::string> cmd{FD_THREADS_EXE, "1000", "200"};
    RunResult bare = run_program(dir, cmd, {.nofile = 1024});
    ASSERT_EQ(bare.status, 0) << bare.out << bare.err;
    RunResult r = run_program(dir, recorded(cmd), {.nofile = 1024, .env = {"CPC_BACKEND=timer"}});
    EXPECT_EQ(r.status, bare.status) << r.out << r.err;
    EXPECT_EQ(r.out, bare.out);
    EXPECT_EQ(r.err.find("libcpc"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Too many open files"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("without counters"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    EXPECT_TRUE(timer_backend(p));
    // The main thread and its thousand, each named in the profile.
    EXPECT_EQ(p.reader->threads().size(), 1001u);
}

namespace {

// `strace -f` of cpcprof record over cmd: the trace's lines.
std::optional<std::vector<std::string>> strace_record(const TempDir &dir,
                                                      const std::vector<std::string> &cmd,
                                                      const ProgramOptions &o = {}) {
    const char *strace = nullptr;
    for (const char *p : {"/usr/bin/strace", "/bin/strace"})
        if (access(p, X_OK) == 0)
            strace = p;
    if (strace == nullptr)
        return std::nullopt;
    std::vector<std::string> all{
        strace, "-f", "-qq", "-o", dir.file("trace"), "-e", "trace=perf_event_open,openat"};
    std::vector<std::string> rec = recorded(cmd);
    all.insert(all.end(), rec.begin(), rec.end());
    RunResult r = run_program(dir, all, o);
    if (r.status != 0)
        return std::vector<std::string>{};
    return split_lines(read_file(dir.file("trace")));
}

// The unwind tables a traced recording compiled (name: times) and how
// many it found in the cache, in the folder whose path holds `folder`.
struct TableUse {
    std::map<std::string, int> compiled;
    size_t mapped = 0;
    std::set<std::string> mapped_names;
};

TableUse table_use(const std::vector<std::string> &lines, const std::string &folder) {
    std::regex created("openat\\(AT_FDCWD, \"([^\"]*)\\.tmp\\d+\", O_WRONLY\\|O_CREAT");
    std::regex opened("openat\\(AT_FDCWD, \"([^\"]*-[0-9a-z]+)\", O_RDONLY\\|O_CLOEXEC");
    // strace -f splits a call that another thread interrupts:
    // "PID openat(... <unfinished ...>", later "PID <... openat resumed>) = N".
    std::map<std::string, std::string> pending; // pid: the path being opened
    TableUse u;
    auto found = [&u](const std::string &path) {
        ++u.mapped;
        u.mapped_names.insert(path);
    };
    for (const std::string &l : lines) {
        std::string pid = l.substr(0, l.find(' '));
        if (l.find("<... openat resumed>") != std::string::npos) {
            auto it = pending.find(pid);
            if (it != pending.end() && std::regex_search(l, std::regex("\\) = \\d+")))
                found(it->second);
            if (it != pending.end())
                pending.erase(it);
            continue;
        }
        std::smatch m;
        if (l.find(folder) == std::string::npos)
            continue;
        if (std::regex_search(l, m, created))
            ++u.compiled[m[1]];
        else if (std::regex_search(l, m, opened)) {
            if (l.find("<unfinished ...>") != std::string::npos)
                pending[pid] = m[1];
            else if (std::regex_search(l, std::regex("\\) = \\d+")))
                found(m[1]);
        }
    }
    return u;
}

} // namespace

// No per-start probing: the recorder and each agent open a handful of
// counters (cpc_open's checks and the binding), not the hundred probes
// of a full event list each.
TEST(RecordStartup, FewCounterProbesBeforeTheTargetRuns) {
    TempDir dir;
    auto lines = strace_record(dir, {"/bin/true"});
    if (!lines)
        GTEST_SKIP() << "strace is not installed (apt-get install strace)";
    ASSERT_FALSE(lines->empty()) << "cpcprof record failed under strace";
    std::map<std::string, size_t> per_pid;
    for (const std::string &l : *lines)
        if (l.find("perf_event_open(") != std::string::npos)
            ++per_pid[l.substr(0, l.find(' '))];
    ASSERT_EQ(per_pid.size(), 2u) << "the recorder and the target";
    for (const auto &[pid, n] : per_pid)
        EXPECT_LE(n, 12u) << "pid " << pid << " opened " << n << " counters";
}

// Thread names come from the threads themselves (the interposed naming
// calls), not from /proc/self/task/TID/comm.
TEST(RecordStartup, ThreadNamesWithoutProcEntries) {
    TempDir dir;
    auto lines = strace_record(dir, {FD_THREADS_EXE, "20", "0"});
    if (!lines)
        GTEST_SKIP() << "strace is not installed (apt-get install strace)";
    ASSERT_FALSE(lines->empty()) << "cpcprof record failed under strace";
    for (const std::string &l : *lines)
        EXPECT_EQ(l.find("/task/"), std::string::npos) << l;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    std::map<std::string, int> names;
    for (const storage::ThreadInfo &t : p.reader->threads())
        ++names[t.name];
    EXPECT_EQ(names["fdt-main"], 1) << "the main thread, named before its first drain";
    // A worker names itself right after it starts; the drain thread may
    // announce it first, with its creator's name.
    EXPECT_GE(names["fdt-worker"], 10);
    EXPECT_EQ(names[""], 0);
}

// Unwind tables are compiled once per module for the whole recording:
// every process after the first maps what the first wrote.
TEST(RecordStartup, UnwindTablesCompiledOncePerModule) {
    TempDir dir;
    ProgramOptions fresh{.env = {"XDG_CACHE_HOME=" + dir.file("cache")}};
    auto lines = strace_record(dir, {"/bin/sh", "-c", "/bin/true; /bin/true; /bin/true"}, fresh);
    if (!lines)
        GTEST_SKIP() << "strace is not installed (apt-get install strace)";
    ASSERT_FALSE(lines->empty()) << "cpcprof record failed under strace";
    TableUse u = table_use(*lines, dir.file("cache/cpcprof/cfi3/"));
    ASSERT_FALSE(u.compiled.empty()) << "no table was written to the user's cache";
    for (const auto &[key, n] : u.compiled)
        EXPECT_EQ(n, 1) << key << " compiled " << n << " times";
    // sh and three /bin/true images share libc, the agent and its
    // libraries: the later images map them.
    EXPECT_GE(u.mapped, 3 * u.compiled.size() / 2) << "tables found in the cache";
}

// The tables stay in the user's cache: the next recording compiles
// nothing (the first process of a recording spent about 8 ms on them).
TEST(RecordStartup, UnwindTablesAreKeptForTheNextRecording) {
    TempDir dir;
    ProgramOptions cache{.env = {"XDG_CACHE_HOME=" + dir.file("cache")}};
    auto first = strace_record(dir, {"/bin/sh", "-c", "/bin/true"}, cache);
    if (!first)
        GTEST_SKIP() << "strace is not installed (apt-get install strace)";
    ASSERT_FALSE(first->empty()) << "cpcprof record failed under strace";
    std::string folder = dir.file("cache/cpcprof/cfi3");
    TableUse u1 = table_use(*first, folder + "/");
    ASSERT_GE(u1.compiled.size(), 3u) << "sh, libc, the loader and the agent's libraries";
    struct stat st;
    ASSERT_EQ(stat(dir.file("cache/cpcprof").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 077, 0u) << "the cache is the user's alone";

    auto second = strace_record(dir, {"/bin/sh", "-c", "/bin/true"}, cache);
    ASSERT_TRUE(second && !second->empty()) << "cpcprof record failed under strace";
    TableUse u2 = table_use(*second, folder + "/");
    EXPECT_TRUE(u2.compiled.empty())
        << u2.compiled.size() << " tables compiled again, e.g. " << u2.compiled.begin()->first;
    // Every table the second recording needed came from the cache (none
    // was compiled again); that is most of the first's (a module loaded
    // late in one run, after the last look at the loader, may be missing
    // from the other).
    size_t again = 0;
    for (const auto &[key, n] : u1.compiled)
        again += u2.mapped_names.count(key);
    EXPECT_GE(2 * again, u1.compiled.size())
        << again << " of " << u1.compiled.size() << " tables found again";
}

// A cache folder that others may write to is not used: the tables go to
// a private folder of the recording, removed at its end.
TEST(RecordStartup, ACacheOthersMayWriteIsNotUsed) {
    TempDir dir;
    ASSERT_EQ(mkdir(dir.file("cache").c_str(), 0700), 0);
    ASSERT_EQ(mkdir(dir.file("cache/cpcprof").c_str(), 0700), 0);
    ASSERT_EQ(chmod(dir.file("cache/cpcprof").c_str(), 0777), 0);
    ASSERT_EQ(mkdir(dir.file("tmp").c_str(), 0700), 0);
    ProgramOptions o{.tmpdir = nullptr,
                     .env = {"XDG_CACHE_HOME=" + dir.file("cache"), "TMPDIR=" + dir.file("tmp")}};
    auto lines = strace_record(dir, {"/bin/true"}, o);
    if (!lines)
        GTEST_SKIP() << "strace is not installed (apt-get install strace)";
    ASSERT_FALSE(lines->empty()) << "cpcprof record failed under strace";
    EXPECT_TRUE(table_use(*lines, dir.file("cache/")).compiled.empty());
    EXPECT_FALSE(table_use(*lines, dir.file("tmp/cpcprof-cfi-")).compiled.empty())
        << "the tables went to the recording's own folder";
    DIR *d = opendir(dir.file("tmp").c_str());
    ASSERT_NE(d, nullptr);
    std::vector<std::string> left;
    while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            left.emplace_back(e->d_name);
    closedir(d);
    EXPECT_TRUE(left.empty()) << left.front() << " left behind";
}

// What the recorder removes from the user's cache at its start.
TEST(RecordStartup, TheCacheIsPrunedByAgeSizeAndHalfWrittenFiles) {
    TempDir dir;
    std::string c = dir.file("cfi3");
    ASSERT_EQ(mkdir(c.c_str(), 0700), 0);
    const int64_t now = 2000000000;
    auto make = [&](const std::string &name, int64_t age_s, size_t bytes) {
        std::string path = c + "/" + name;
        std::ofstream(path).put('x');
        ASSERT_EQ(truncate(path.c_str(), off_t(bytes)), 0); // sparse: its size is what counts
        timespec t[2] = {{now - age_s, 0}, {now - age_s, 0}};
        utimensat(AT_FDCWD, path.c_str(), t, 0);
    };
    const size_t mib = 1u << 20;
    make("fresh", 60, 1000);
    make("month-old", 31 * 24 * 3600, 1000);
    make("t.tmp123", 2 * 3600, 1000);          // an agent killed mid-write
    make("t.tmp456", 10, 1000);                // an agent writing now
    make("big-old", 3 * 24 * 3600, 200 * mib); // the oldest beyond the cap goes
    make("big-new", 24 * 3600, 100 * mib);
    cpcprof::record::prune_cfi_cache(c, now);
    auto exists = [&](const char *n) { return access((c + "/" + n).c_str(), F_OK) == 0; };
    EXPECT_TRUE(exists("fresh"));
    EXPECT_FALSE(exists("month-old"));
    EXPECT_FALSE(exists("t.tmp123"));
    EXPECT_TRUE(exists("t.tmp456"));
    EXPECT_FALSE(exists("big-old")) << "300 MiB held, the cap is 256";
    EXPECT_TRUE(exists("big-new"));
}

// Listing the cache is not every start's cost (2 ms for some hundred
// tables): it is pruned at most once an hour, the time kept in a stamp.
TEST(RecordStartup, TheCacheIsPrunedAtMostOnceAnHour) {
    TempDir dir;
    std::string c = dir.file("cfi3");
    ASSERT_EQ(mkdir(c.c_str(), 0700), 0);
    const int64_t now = 2000000000;
    auto month_old = [&](const std::string &name) {
        std::string path = c + "/" + name;
        std::ofstream(path).put('x');
        timespec t[2] = {{now - 31 * 24 * 3600, 0}, {now - 31 * 24 * 3600, 0}};
        utimensat(AT_FDCWD, path.c_str(), t, 0);
    };
    auto exists = [&](const std::string &n) { return access((c + "/" + n).c_str(), F_OK) == 0; };
    month_old("a");
    EXPECT_TRUE(cpcprof::record::prune_cfi_cache_if_due(c, now));
    EXPECT_FALSE(exists("a"));
    month_old("b");
    EXPECT_FALSE(cpcprof::record::prune_cfi_cache_if_due(c, now + 600)) << "pruned 10 min ago";
    EXPECT_TRUE(exists("b"));
    EXPECT_TRUE(cpcprof::record::prune_cfi_cache_if_due(c, now + 3600));
    EXPECT_FALSE(exists("b"));
    EXPECT_TRUE(exists(".pruned")) << "the stamp is not a table: never pruned";
}

namespace {

std::vector<std::string> entries(const std::string &dir) {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d))
            if (std::string(e->d_name).rfind("cpcprof-cfi-", 0) == 0)
                names.push_back(e->d_name);
        closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

// The table directory goes with the recording; one left by a recorder
// that was killed is removed by the next, one of a recorder that still
// runs is not.
TEST(RecordStartup, TableDirectoriesDoNotPileUp) {
    TempDir dir;
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, nullptr, 0);
    std::string stale = dir.file("cpcprof-cfi-" + std::to_string(dead) + "-AAAAAA");
    std::string live = dir.file("cpcprof-cfi-" + std::to_string(getpid()) + "-BBBBBB");
    ASSERT_EQ(mkdir(stale.c_str(), 0700), 0);
    ASSERT_EQ(mkdir(live.c_str(), 0700), 0);
    std::ofstream(stale + "/table") << "x";
    RunResult r = run_program(dir, recorded({"/bin/true"}), {.tmpdir = dir.path().c_str()});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(entries(dir.path()),
              std::vector<std::string>{"cpcprof-cfi-" + std::to_string(getpid()) + "-BBBBBB"});
    rmdir(live.c_str());
}
