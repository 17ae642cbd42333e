// SPDX-License-Identifier: MIT
// What `cpcprof record` does with its output file and its limits: only a
// regular file is ever replaced, a command that cannot run leaves the
// previous profile as it was, sampling rates and periods the machine
// cannot deliver are refused at once, absurd buffer sizes are refused, and
// a disk that fills stops the recording at once, with the loss counted.
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <signal.h>
#include <string>
#include <thread>

using namespace cpcprof::test;
using namespace std::chrono_literals;

namespace {

struct Entry {
    bool exists = false;
    mode_t mode = 0;
    ino_t ino = 0;
    std::string link; // what a symbolic link points to
};

Entry look(const std::string &path) {
    Entry e;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return e;
    e.exists = true;
    e.mode = st.st_mode;
    e.ino = st.st_ino;
    if (S_ISLNK(st.st_mode)) {
        char buf[4096];
        ssize_t n = readlink(path.c_str(), buf, sizeof buf);
        if (n > 0)
            e.link.assign(buf, size_t(n));
    }
    return e;
}

std::set<std::string> names_in(const std::string &dir) {
    std::set<std::string> out;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        out.insert(e.path().filename().string());
    return out;
}

// The pid of the first child of pid, or 0.
pid_t first_child(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    pid_t child = 0;
    in >> child;
    return child;
}

} // namespace

// -o onto a FIFO, a directory or a symbolic link to a device: refused with
// what it is, exit 2, and each entry stays exactly what it was (no .old).
TEST(RecordOutput, RefusesAnythingButARegularFile) {
    TempDir dir;
    ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0644), 0);
    ASSERT_EQ(mkdir(dir.file("dir").c_str(), 0755), 0);
    ASSERT_EQ(symlink("/dev/null", dir.file("null").c_str()), 0);
    struct Case {
        std::string name, says;
    };
    for (const Case &c : {Case{"fifo", "fifo is a FIFO"}, Case{"dir", "dir is a directory"},
                          Case{"null", "null is a symbolic link to a character device"}}) {
        Entry before = look(dir.file(c.name));
        RunResult r = run_cpcprof(dir, {"record", "-o", c.name, "--", "true"});
        EXPECT_EQ(r.status, 2) << c.name << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        Entry after = look(dir.file(c.name));
        EXPECT_TRUE(after.exists) << c.name;
        EXPECT_EQ(after.mode, before.mode) << c.name;
        EXPECT_EQ(after.ino, before.ino) << c.name;
        EXPECT_EQ(after.link, before.link) << c.name;
        EXPECT_FALSE(look(dir.file(c.name + ".old")).exists) << c.name;
    }
    RunResult r = run_cpcprof(dir, {"record", "-o", "", "--", "true"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("-o needs a file name"), std::string::npos) << r.err;
    struct stat st;
    ASSERT_EQ(stat(dir.file("null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
    EXPECT_EQ(names_in(dir.path()),
              (std::set<std::string>{"dir", "fifo", "null", "stdout", "stderr"}));
}

// Where the previous profile would go must be a regular file too: a FIFO
// at NAME.old is refused and the profile at NAME is left where it is.
TEST(RecordOutput, RefusesAnOldNameThatIsNotARegularFile) {
    TempDir dir;
    {
        std::ofstream f(dir.file("out.cpcprof"));
        f << "an earlier recording\n";
    }
    ASSERT_EQ(mkfifo(dir.file("out.cpcprof.old").c_str(), 0644), 0);
    RunResult r = run_cpcprof(dir, {"record", "-o", "out.cpcprof", "--", "true"});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("out.cpcprof.old is a FIFO"), std::string::npos) << r.err;
    EXPECT_TRUE(S_ISFIFO(look(dir.file("out.cpcprof.old")).mode));
    EXPECT_EQ(read_file(dir.file("out.cpcprof")), "an earlier recording\n");
}

// Two typos in a row: each exits 127 with its message; the profile is
// byte for byte what it was, no .old and no temporary file appear.  The
// next good recording then keeps it as .old.
TEST(RecordOutput, ACommandThatCannotRunLeavesThePreviousProfile) {
    TempDir dir;
    RunResult good = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", "true"});
    ASSERT_EQ(good.status, 0) << good.err;
    std::string original = read_file(dir.file("out.cpcprof"));
    ASSERT_FALSE(original.empty());
    std::set<std::string> names = names_in(dir.path());
    for (const char *typo : {"no-such-command-cpcprof", "./no-such-command-either"}) {
        RunResult r = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", typo});
        EXPECT_EQ(r.status, 127) << r.err;
        EXPECT_NE(r.err.find(std::string("cannot run '") + typo + "'"), std::string::npos) << r.err;
        EXPECT_EQ(read_file(dir.file("out.cpcprof")), original) << "after " << typo;
        EXPECT_EQ(names_in(dir.path()), names) << "after " << typo;
    }
    EXPECT_FALSE(look(dir.file("out.cpcprof.old")).exists);
    good = run_cpcprof(dir, {"record", "-q", "-o", "out.cpcprof", "--", "true"});
    ASSERT_EQ(good.status, 0) << good.err;
    EXPECT_EQ(read_file(dir.file("out.cpcprof.old")), original);
}

// --ring-kb outside 16 KiB .. 64 MiB and counts beyond 64 bits are usage
// errors that name the problem; the command never runs.
TEST(RecordOptions, NonsenseNumbersAreRefused) {
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"--ring-kb", "99999999999"}, "16 to 65536 KiB"},
        {{"--ring-kb", "1048576"}, "16 to 65536 KiB"},
        {{"--ring-kb", "8"}, "16 to 65536 KiB"},
        {{"-c", "99999999999999999999999"}, "is too large"},
        {{"-e", "cpu-clock,18446744073709551616"}, "is too large"},
        {{"--ring-kb", " 64"}, "a positive number is needed"},
        {{"-F", "1e5"}, "a positive number is needed"},
    };
    for (const Case &c : cases) {
        TempDir dir;
        std::vector<std::string> args{"record"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        for (const char *a : {"-o", "out.cpcprof", "--", "sh", "-c", "echo ran"})
            args.push_back(a);
        RunResult r = run_cpcprof(dir, args);
        EXPECT_EQ(r.status, 2) << c.args[0] << " " << c.args[1] << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "") << "the command ran";
        EXPECT_FALSE(look(dir.file("out.cpcprof")).exists);
    }
    TempDir dir;
    RunResult r =
        run_cpcprof(dir, {"record", "-q", "--ring-kb", "65536", "-o", "out.cpcprof", "--", "true"});
    EXPECT_EQ(r.status, 0) << "the largest ring is accepted: " << r.err;
}

namespace {

// Mounts a 256 KiB tmpfs on a directory for one test; unmounted after.
class SmallDisk {
  public:
    explicit SmallDisk(const std::string &where) : where_(where) {
        mkdir(where.c_str(), 0755);
        mounted_ = mount("tmpfs", where.c_str(), "tmpfs", 0, "size=256k") == 0;
        if (!mounted_)
            error_ = std::strerror(errno);
    }
    ~SmallDisk() {
        if (mounted_)
            umount2(where_.c_str(), MNT_DETACH);
    }
    bool mounted() const { return mounted_; }
    const std::string &error() const { return error_; }

  private:
    std::string where_, error_;
    bool mounted_ = false;
};

} // namespace

// A disk that fills mid-recording: the recorder says so while the program
// still runs, the program runs to its end unharmed, the file keeps what
// was stored before and counts every sample it lacks as dropped, and the
// recorder exits 1.  The disk is a 256 KiB tmpfs where the test may mount
// one (root), else a 256 KiB RLIMIT_FSIZE on the recorder (SIGXFSZ
// ignored: the write fails with EFBIG instead); the test says which.
TEST(RecordOutput, AFullDiskStopsTheRecordingAtOnceAndCountsTheLoss) {
    TempDir dir;
    SmallDisk disk(dir.file("small"));
    const std::vector<std::string> args = {
        "record", "-F", "4000", "-o", "small/out.cpcprof", "--", WORKLOAD_FP, "--seconds", "1.5"};
    pid_t rec = 0;
    if (disk.mounted()) {
        std::printf("the full disk: a 256 KiB tmpfs\n");
        rec = start_cpcprof(dir, args);
    } else {
        std::printf("the full disk: RLIMIT_FSIZE 256 KiB (no tmpfs: %s)\n", disk.error().c_str());
        rlimit old{}, small{256 * 1024, 256 * 1024};
        ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
        small.rlim_max = old.rlim_max;
        sighandler_t old_xfsz = signal(SIGXFSZ, SIG_IGN);
        ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
        rec = start_cpcprof(dir, args); // the recorder inherits both
        setrlimit(RLIMIT_FSIZE, &old);
        signal(SIGXFSZ, old_xfsz);
    }
    // Until the recorder says it stopped: the target must still be running
    // then (it needs 1.5 s of CPU time; the disk is full after a fraction).
    bool said = false, target_alive = false;
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         !said && std::chrono::steady_clock::now() < deadline;) {
        std::this_thread::sleep_for(10ms);
        pid_t target = first_child(rec);
        said = read_file(dir.file("stderr")).find("recording stopped") != std::string::npos;
        target_alive = said && target > 0 && kill(target, 0) == 0;
        if (waitpid(rec, nullptr, WNOHANG) != 0)
            break;
    }
    RunResult r = wait_cpcprof(dir, rec);
    ASSERT_TRUE(said) << r.err;
    EXPECT_TRUE(target_alive) << "said only once the target had ended:\n" << r.err;
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find(disk.mounted() ? "disk is full" : "I/O error"), std::string::npos)
        << r.err;
    EXPECT_NE(lines_with(r.out, "depth wl_recurse ").size(), 0u) << "the target did not finish";
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s) << r.err;
    EXPECT_EQ(s->taken, s->stored + s->dropped);
    EXPECT_GT(s->dropped, 0u);
    EXPECT_NE(r.err.find("are counted as dropped in it"), std::string::npos) << r.err;

    Profile p = load_profile(dir.file("small/out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    cpcprof::storage::Accounting total = p.reader->accounting_total();
    EXPECT_TRUE(p.reader->accounting_balanced());
    EXPECT_EQ(total.taken, s->taken);
    EXPECT_EQ(total.dropped, s->dropped);
    EXPECT_EQ(p.samples.size(), s->stored);
    EXPECT_EQ(total.stored, p.samples.size());

    // The file never reads as a finished recording: every reader says it
    // was cut short, why, and what it kept and lost.
    EXPECT_FALSE(p.reader->complete());
    std::optional<std::string> why = p.reader->cut_short();
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("writing the file failed ("), std::string::npos) << *why;
    EXPECT_NE(why->find(disk.mounted() ? "disk is full" : "I/O error"), std::string::npos) << *why;
    EXPECT_NE(why->find("the samples stored before are here, "), std::string::npos) << *why;
    EXPECT_NE(why->find(" after that are not (counted as dropped)"), std::string::npos) << *why;
    RunResult check = run_cpcprof(dir, {"check", "small/out.cpcprof"});
    EXPECT_NE(check.out.find("recording cut short: writing the file failed"), std::string::npos)
        << check.out << check.err;
    EXPECT_EQ(check.out.find("recording finished"), std::string::npos) << check.out;
    RunResult report = run_cpcprof(dir, {"report", "small/out.cpcprof"});
    EXPECT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.err.find("the recording was cut short: writing the file failed"),
              std::string::npos)
        << report.err;
    EXPECT_NE(report.out.find("# notice: recording: writing the file failed"), std::string::npos)
        << report.out;
}

namespace {

// Fills the file system of dir: a file written until it is full.
void fill(const std::string &file) {
    std::FILE *f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::setvbuf(f, nullptr, _IONBF, 0);
    std::string block(4096, 'x');
    while (std::fwrite(block.data(), 1, block.size(), f) == block.size()) {
    }
    std::fputc('x', f); // the last partial block
    std::fclose(f);
}

} // namespace

// The profile cannot even be created once the command has started (a
// full disk: the checks before the start only create an empty file): the
// command runs to its end unrecorded, the recorder exits 1, and the
// previous profile and its .old are back where they were.
TEST(RecordOutput, AProfileThatCannotBeCreatedLeavesThePreviousOnes) {
    TempDir dir;
    SmallDisk disk(dir.file("small"));
    if (!disk.mounted())
        GTEST_SKIP() << "cannot mount a small tmpfs to fill (" << disk.error()
                     << "); this test needs root";
    {
        std::ofstream(dir.file("small/out.cpcprof")) << "the previous recording\n";
        std::ofstream(dir.file("small/out.cpcprof.old")) << "the one before\n";
    }
    fill(dir.file("small/filler"));
    RunResult r = run_cpcprof(
        dir, {"record", "-o", "small/out.cpcprof", "--", "sh", "-c", "echo ran to its end"});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("the command runs on without being recorded"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "ran to its end\n");
    EXPECT_EQ(read_file(dir.file("small/out.cpcprof")), "the previous recording\n");
    EXPECT_EQ(read_file(dir.file("small/out.cpcprof.old")), "the one before\n");
    EXPECT_EQ(names_in(dir.file("small")),
              (std::set<std::string>{"filler", "out.cpcprof", "out.cpcprof.old"}));
}

// The size record states is the file's when it is done: after the
// symbols were added (they grow it), or in the summary with
// --no-symbolize.
TEST(RecordOutput, StatesTheFilesRealSize) {
    for (bool symbolize : {true, false}) {
        TempDir dir;
        std::vector<std::string> args{"record", "-o", dir.file("out.cpcprof")};
        if (!symbolize)
            args.emplace_back("--no-symbolize");
        args.insert(args.end(), {"--", THREADS_EXE, "2", "2"});
        RunResult r = run_cpcprof(dir, args);
        ASSERT_EQ(r.status, 0) << r.err;
        struct stat st {};
        ASSERT_EQ(stat(dir.file("out.cpcprof").c_str(), &st), 0);
        std::smatch m;
        // On the line of the last step that wrote the file, and only there.
        std::regex said(std::string(symbolize ? "symbolized" : "recorded") +
                        "[^\n]*out\\.cpcprof \\(([0-9.]+) KiB\\)");
        ASSERT_TRUE(std::regex_search(r.err, m, said)) << r.err;
        EXPECT_EQ(count_lines_containing(r.err, "KiB"), 1u) << r.err;
        EXPECT_NEAR(std::stod(m[1]), double(st.st_size) / 1024.0, 0.05)
            << r.err << st.st_size << " bytes";
    }
}
