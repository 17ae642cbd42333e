#include "record_harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace cpcprof::test {

TempDir::TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/cpcprof-record-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
        std::perror("mkdtemp");
        std::abort();
    }
    path_ = buf.data();
}

TempDir::~TempDir() {
    if (std::getenv("CPCPROF_TEST_KEEP") != nullptr) {
        std::fprintf(stderr, "kept %s\n", path_.c_str());
        return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

pid_t start_cpcprof(const TempDir &dir, const std::vector<std::string> &args) {
    std::vector<std::string> all{CPCPROF_EXE};
    all.insert(all.end(), args.begin(), args.end());
    std::string out = dir.file("stdout"), err = dir.file("stderr");
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        if (chdir(dir.path().c_str()) != 0)
            _exit(126);
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int n = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || n < 0)
            _exit(126);
        dup2(n, 0);
        dup2(o, 1);
        dup2(e, 2);
        // Nothing of the test's reaches the recorder or its target.
        syscall(SYS_close_range, 3u, ~0u, 0u);
        std::vector<char *> argv;
        for (std::string &a : all)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        unsetenv("LD_PRELOAD");
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

RunResult wait_cpcprof(const TempDir &dir, pid_t pid, int timeout_s) {
    RunResult r;
    int status = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        if (w < 0)
            return r;
        if (waited_ms >= timeout_s * 1000 && !r.timed_out) {
            r.timed_out = true;
            kill(-pid, SIGKILL);
        }
        usleep(5000);
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(dir.file("stdout"));
    r.err = read_file(dir.file("stderr"));
    return r;
}

RunResult run_cpcprof(const TempDir &dir, const std::vector<std::string> &args, int timeout_s) {
    return wait_cpcprof(dir, start_cpcprof(dir, args), timeout_s);
}

std::optional<Summary> parse_summary(const std::string &err) {
    static const std::regex re(
        R"(cpcprof: recorded ([0-9.]+) s: (\d+) process(?:es)?, (\d+) threads?; samples taken (\d+), stored (\d+), dropped (\d+);)");
    std::smatch m;
    if (!std::regex_search(err, m, re))
        return std::nullopt;
    Summary s;
    s.seconds = std::stod(m[1]);
    s.processes = static_cast<unsigned>(std::stoul(m[2]));
    s.threads = static_cast<unsigned>(std::stoul(m[3]));
    s.taken = std::stoull(m[4]);
    s.stored = std::stoull(m[5]);
    s.dropped = std::stoull(m[6]);
    return s;
}

std::vector<std::string> lines_with(const std::string &text, const std::string &prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(prefix, 0) == 0)
            out.push_back(line.substr(prefix.size()));
    return out;
}

size_t count_lines_containing(const std::string &text, const std::string &needle) {
    size_t n = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        n += line.find(needle) != std::string::npos;
    return n;
}

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

storage::StoredSample SampleCopy::view() const {
    storage::StoredSample s;
    s.pid = pid;
    s.tid = tid;
    s.time_ns = time_ns;
    s.complete = complete;
    s.frames = frames;
    return s;
}

Profile load_profile(const std::string &path) {
    Profile p;
    p.reader = storage::Reader::open(path, &p.error);
    if (p.reader == nullptr)
        return p;
    p.reader->for_each_sample(
        [&](const storage::StoredSample &s) {
            p.samples.push_back({s.pid, s.tid, s.time_ns, s.complete,
                                 std::vector<uint64_t>(s.frames.begin(), s.frames.end())});
        },
        &p.error);
    return p;
}

std::string integrity_check(const std::string &path) {
    sqlite3 *db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::string result;
    if (rc != SQLITE_OK) {
        result = std::string("cannot open: ") + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return result;
    }
    sqlite3_stmt *st = nullptr;
    rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        if (!result.empty())
            result += "; ";
        result += reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
    }
    if (rc != SQLITE_OK || result.empty())
        result = std::string("integrity_check failed: ") + sqlite3_errmsg(db);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return result;
}

RunResult run_program(const TempDir &dir, const std::vector<std::string> &argv,
                      const ProgramOptions &o) {
    std::string out = dir.file("program.stdout"), err = dir.file("program.stderr");
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir.path().c_str()) != 0)
            _exit(126);
        int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        close_range(3, ~0u, 0);
        if (o.tmpdir != nullptr)
            setenv("TMPDIR", o.tmpdir, 1);
        for (const std::string &v : o.env)
            putenv(const_cast<char *>(v.c_str()));
        unsetenv("LD_PRELOAD");
        if (o.nofile != 0) {
            rlimit rl{o.nofile, o.nofile};
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
                _exit(126);
        }
        std::vector<char *> args;
        for (const std::string &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    RunResult r;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

} // namespace cpcprof::test

namespace {

// In a sanitized build (the asan preset) the agent and libcpc.so carry the
// AddressSanitizer runtime, which refuses to load into the unsanitized
// targets ("ASan runtime does not come first in initial library list"):
// nothing can be recorded, so every test skips and says why.
class SanitizedBuild : public testing::Environment {
  public:
    void SetUp() override {
#ifdef RECORD_AGENT_SANITIZED
        GTEST_SKIP() << "the agent is built with AddressSanitizer, whose runtime cannot be "
                        "preloaded into the unsanitized targets; the record tests run in the "
                        "dev preset";
#endif
    }
};

[[maybe_unused]] testing::Environment *const g_sanitized =
    testing::AddGlobalTestEnvironment(new SanitizedBuild);

} // namespace
