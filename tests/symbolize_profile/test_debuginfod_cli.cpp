// SPDX-License-Identifier: MIT
// `cpcprof record` with DEBUGINFOD_URLS: a stripped bundled program gets
// its names from Debian's real debuginfod serving the unstripped one on
// loopback; a server that accepts and never answers holds the end of the
// recording for --debuginfod-wait only, the file is whole, and `cpcprof
// symbolize` asks again; a port where nothing listens is named once and
// not waited for.  `cpcprof symbolize --debuginfod URL`: progress of a
// slow download, Ctrl-C stopping the lookups with the file written.
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include "profiler/analysis/query.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

using namespace cpcprof::test;
namespace analysis = cpcprof::analysis;

namespace {

// A TCP socket listening on a loopback port of its own that never
// accepts: the kernel completes the connections, nobody answers.
struct SilentServer {
    int fd = -1;
    int port = 0;
    SilentServer() {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (fd < 0 || bind(fd, reinterpret_cast<sockaddr *>(&a), len) != 0 || listen(fd, 64) != 0 ||
            getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
            return;
        port = ntohs(a.sin_port);
    }
    ~SilentServer() {
        if (fd >= 0)
            close(fd);
    }
    // Whether a connection is waiting to be accepted: someone asked.  (The
    // socket does not block: accept answers at once.)
    // Whether a connection waits, left waiting (the client keeps waiting
    // for an answer).
    bool pending() const {
        pollfd p{fd, POLLIN, 0};
        return poll(&p, 1, 0) == 1;
    }
    bool asked() const {
        int c = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0)
            return false;
        close(c);
        return true;
    }
};

// A loopback port where nothing listens (bound, then closed).
int closed_port() {
    SilentServer s;
    return s.port;
}

std::string url(int port) {
    return "http://127.0.0.1:" + std::to_string(port);
}

RunResult record_with(const TempDir &dir, const std::vector<std::string> &env,
                      const std::vector<std::string> &extra = {}) {
    std::vector<std::string> argv{CPCPROF_EXE, "record", "-o", "out.cpcprof"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), {"--", WORKLOAD_STRIPPED, "--seconds", "0.3"});
    ProgramOptions o;
    o.own_group = true;
    o.env = env;
    o.env.push_back("DEBUGINFOD_CACHE_PATH=" + dir.file("cache"));
    return wait_program(dir, start_program(dir, argv, o), o, 120);
}

// `cpcprof symbolize out.cpcprof ARGS` with no server from the
// environment, caching in dir's cache; started, not waited for.
pid_t start_symbolize(const TempDir &dir, const std::vector<std::string> &args) {
    std::vector<std::string> argv{CPCPROF_EXE, "symbolize", "out.cpcprof"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProgramOptions o;
    o.own_group = true;
    o.env = {"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=" + dir.file("cache")};
    o.out = "symbolize.stdout";
    o.err = "symbolize.stderr";
    return start_program(dir, argv, o);
}

RunResult wait_symbolize(const TempDir &dir, pid_t pid) {
    ProgramOptions o;
    o.own_group = true;
    o.out = "symbolize.stdout";
    o.err = "symbolize.stderr";
    return wait_program(dir, pid, o, 120);
}

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

TEST(DebuginfodCli, AServerThatNeverAnswersHoldsTheEndForTheBoundOnly) {
    SilentServer server;
    ASSERT_GT(server.port, 0);
    TempDir dir;
    auto start = std::chrono::steady_clock::now();
    RunResult r =
        record_with(dir, {"DEBUGINFOD_URLS=" + url(server.port)}, {"--debuginfod-wait", "2"});
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(r.timed_out) << r.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(server.asked()) << "nobody connected to the server\n" << r.err;
    EXPECT_NE(r.err.find("did not give their debug files within 2 s (--debuginfod-wait)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("cpcprof symbolize out.cpcprof asks again"), std::string::npos) << r.err;
    // libdebuginfod alone waits 90 s a try; the bound is 2 s after a
    // 0.3 s program: a minute allows for any busy machine.
    EXPECT_LT(seconds, 60) << r.err;
    // The file is whole and keeps the names from this machine's files.
    RunResult check = run_cpcprof(dir, {"check", "out.cpcprof"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("recording finished, symbolized"), std::string::npos) << check.out;
    std::string error;
    auto q = analysis::Query::open(dir.file("out.cpcprof"), {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_GT(q->total().samples, 0u);
    EXPECT_NE(r.err.find("cpcprof: modules without symbols: "), std::string::npos) << r.err;
    q.reset();

    // A lookup given up is not remembered as "no server has it":
    // `cpcprof symbolize` asks again, here the server named by --debuginfod.
    while (server.asked()) {
    }
    RunResult again = wait_symbolize(
        dir, start_symbolize(dir, {"--debuginfod", url(server.port), "--debuginfod-wait", "2"}));
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_TRUE(server.asked()) << "symbolize did not ask the server again\n" << again.err;
    EXPECT_NE(again.err.find("cpcprof: fetching the debug file of workload_stripped from " +
                             url(server.port) + ": no answer after "),
              std::string::npos)
        << again.err;
    EXPECT_NE(again.err.find("did not give their debug files within 2 s (--debuginfod-wait)"),
              std::string::npos)
        << again.err;
}

TEST(DebuginfodCli, CtrlCStopsTheLookupsAndTheFileIsStillWritten) {
    SilentServer server;
    ASSERT_GT(server.port, 0);
    TempDir dir;
    RunResult r = record_with(dir, {"DEBUGINFOD_URLS="});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = start_symbolize(dir, {"--debuginfod", url(server.port)});
    // Stopped while it waits for the server (it would wait 120 s).
    for (int i = 0; i < 300 && !server.pending(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_EQ(kill(pid, SIGINT), 0);
    RunResult s = wait_symbolize(dir, pid);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(s.timed_out) << s.err;
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_LT(seconds, 60) << s.err;
    EXPECT_NE(s.err.find("the lookups were stopped (Ctrl-C)"), std::string::npos) << s.err;
    EXPECT_NE(s.err.find("symbolized "), std::string::npos) << s.err;
    RunResult check = run_cpcprof(dir, {"check", "out.cpcprof"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    EXPECT_NE(check.out.find("recording finished, symbolized"), std::string::npos) << check.out;
}

TEST(DebuginfodCli, NoServerIsAskedWithAWaitOfZero) {
    SilentServer server;
    ASSERT_GT(server.port, 0);
    TempDir dir;
    RunResult r =
        record_with(dir, {"DEBUGINFOD_URLS=" + url(server.port)}, {"--debuginfod-wait", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(server.asked()) << r.err;
    EXPECT_EQ(r.err.find("debuginfod"), std::string::npos) << r.err;
}

TEST(DebuginfodCli, AServerThatRefusesIsNamedOnceAndNotWaitedFor) {
    const int port = closed_port();
    ASSERT_GT(port, 0);
    TempDir dir;
    RunResult r = record_with(dir, {"DEBUGINFOD_URLS=" + url(port)});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count(r.err, url(port)), 1u) << r.err;
    EXPECT_NE(r.err.find("the debuginfod server " + url(port) +
                         " (Connection refused) is not "
                         "asked: it cannot be reached"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("asking debuginfod servers"), std::string::npos) << r.err;
    RunResult check = run_cpcprof(dir, {"check", "out.cpcprof"});
    EXPECT_EQ(check.status, 0) << check.out << check.err;
}

std::string build_id(const std::string &path) {
    std::string out;
    if (FILE *p = popen(("readelf -n '" + path + "' 2>/dev/null").c_str(), "r")) {
        char line[512];
        while (std::fgets(line, sizeof line, p) != nullptr) {
            std::string l = line;
            size_t at = l.find("Build ID: ");
            if (at != std::string::npos)
                out = l.substr(at + 10, l.find_last_not_of(" \n") - at - 9);
        }
        pclose(p);
    }
    return out;
}

// HTTP status of GET path on the loopback port (the body is not read), 0
// when it cannot be asked.
int http_status(int port, const std::string &path) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(port));
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int status = 0;
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
        std::string req = "GET " + path + " HTTP/1.0\r\n\r\n"; // debuginfod serves GET only
        if (write(fd, req.data(), req.size()) == ssize_t(req.size())) {
            char buf[64] = {};
            if (read(fd, buf, sizeof buf - 1) > 12 && std::string(buf).starts_with("HTTP/"))
                status = std::atoi(buf + 9);
        }
    }
    close(fd);
    return status;
}

TEST(DebuginfodCli, AStrippedProgramIsNamedThroughARealServer) {
    if (std::system("command -v debuginfod >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "Debian's debuginfod is not installed (packaging/install-deps.sh "
                        "--tests installs it)";
    const std::string id = build_id(WORKLOAD_FP);
    ASSERT_FALSE(id.empty()) << "readelf gave no build-id for " << WORKLOAD_FP;
    ASSERT_EQ(build_id(WORKLOAD_STRIPPED), id) << "stripping kept the build-id";
    TempDir dir;
    std::filesystem::create_directories(dir.file("served"));
    std::filesystem::copy_file(WORKLOAD_FP, dir.file("served/workload"));
    const int port = closed_port();
    ASSERT_GT(port, 0);
    ProgramOptions so;
    so.own_group = true;
    so.out = "server.stdout";
    so.err = "server.stderr";
    pid_t server = start_program(dir,
                                 {"/usr/bin/env", "debuginfod", "-F", dir.file("served"), "-p",
                                  std::to_string(port), "-d", dir.file("index.sqlite")},
                                 so);
    struct Stop {
        pid_t pid;
        ~Stop() {
            kill(-pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    } stop{server};
    // The server scans the folder when it starts: ask until it serves the
    // file (a minute at most, for a busy machine).
    int status = 0;
    for (int i = 0; i < 600 && status != 200; ++i) {
        status = http_status(port, "/buildid/" + id + "/debuginfo");
        if (status != 200)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(status, 200) << "debuginfod did not serve " << id << ":\n"
                           << read_file(dir.file("server.stderr"));

    RunResult r = record_with(dir, {"DEBUGINFOD_URLS=" + url(port)});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string error;
    auto q = analysis::Query::open(dir.file("out.cpcprof"), {}, &error);
    ASSERT_TRUE(q) << error;
    std::vector<uint32_t> compute = q->find_functions("wl_compute");
    ASSERT_EQ(compute.size(), 1u) << "wl_compute is not named:\n" << r.err;
    EXPECT_TRUE(q->functions()[compute[0]].has_symbols);
    EXPECT_GT(q->function_self()[compute[0]].samples, 0u);
    EXPECT_FALSE(q->functions()[compute[0]].file.empty()) << "no source file from its DWARF";
    for (const analysis::Query::ModuleCost &m : q->modules_lacking_names())
        EXPECT_FALSE(m.path.ends_with("workload_stripped")) << r.err;
    // Cached where libdebuginfod caches (DEBUGINFOD_CACHE_PATH here).
    EXPECT_TRUE(std::filesystem::exists(dir.file("cache/" + id + "/debuginfo"))) << r.err;
}

// An HTTP server on a loopback port of its own that answers
// /buildid/ID/debuginfo with body, sent in ten pieces 0.3 s apart (a
// download that takes about three seconds), and anything else with 404.
class DribblingServer {
  public:
    DribblingServer(const std::string &id, std::string body)
        : path_("/buildid/" + id + "/debuginfo "), body_(std::move(body)) {
        fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr *>(&a), len) != 0 ||
            listen(fd_, 16) != 0 || getsockname(fd_, reinterpret_cast<sockaddr *>(&a), &len) != 0)
            return;
        port = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~DribblingServer() {
        stop_ = true;
        if (thread_.joinable())
            thread_.join();
        if (fd_ >= 0)
            close(fd_);
    }
    DribblingServer(const DribblingServer &) = delete;
    DribblingServer &operator=(const DribblingServer &) = delete;

    int port = 0;
    std::atomic<int> served{0};

  private:
    void serve() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (poll(&p, 1, 100) != 1)
                continue;
            int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            timeval tv{5, 0};
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            std::string request;
            char buf[1024];
            while (request.find("\r\n\r\n") == std::string::npos) {
                ssize_t n = read(c, buf, sizeof buf);
                if (n <= 0)
                    break;
                request.append(buf, size_t(n));
            }
            if (request.find(path_) != std::string::npos) {
                std::string head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                                   "Content-Length: " +
                                   std::to_string(body_.size()) + "\r\nConnection: close\r\n\r\n";
                bool ok = write(c, head.data(), head.size()) == ssize_t(head.size());
                const size_t piece = body_.size() / 10 + 1;
                for (size_t at = 0; ok && at < body_.size() && !stop_; at += piece) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(300));
                    size_t n = std::min(piece, body_.size() - at);
                    ok = write(c, body_.data() + at, n) == ssize_t(n);
                }
                served += ok;
            } else {
                const char no[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                                  "Connection: close\r\n\r\n";
                (void)!write(c, no, sizeof no - 1);
            }
            close(c);
        }
    }

    std::string path_, body_;
    int fd_ = -1;
    std::thread thread_;
    std::atomic<bool> stop_{false};
};

TEST(DebuginfodCli, SymbolizeSaysWhatItFetchesFromWhomAndHowMuch) {
    TempDir dir;
    RunResult r = record_with(dir, {"DEBUGINFOD_URLS="});
    ASSERT_EQ(r.status, 0) << r.err;
    DribblingServer server(build_id(WORKLOAD_FP), read_file(WORKLOAD_FP));
    ASSERT_GT(server.port, 0);
    RunResult s = wait_symbolize(dir, start_symbolize(dir, {"--debuginfod", url(server.port)}));
    ASSERT_FALSE(s.timed_out) << s.err;
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_EQ(server.served, 1) << s.err;
    // Progress after the first second: the module, the server, the bytes
    // of the whole.
    const std::string head =
        "cpcprof: fetching the debug file of workload_stripped from " + url(server.port) + ": ";
    const size_t at = s.err.find(head);
    ASSERT_NE(at, std::string::npos) << s.err;
    const std::string line = s.err.substr(at, s.err.find('\n', at) - at);
    EXPECT_NE(line.find(" of "), std::string::npos) << "no size of the whole: " << line;
    EXPECT_NE(s.err.find("debug files from debuginfod: "), std::string::npos) << s.err;
    std::string error;
    auto q = analysis::Query::open(dir.file("out.cpcprof"), {}, &error);
    ASSERT_TRUE(q) << error;
    std::vector<uint32_t> compute = q->find_functions("wl_compute");
    ASSERT_EQ(compute.size(), 1u) << "wl_compute is not named:\n" << s.err;
    EXPECT_TRUE(q->functions()[compute[0]].has_symbols);
    EXPECT_FALSE(q->functions()[compute[0]].file.empty()) << "no source file from its DWARF";
}

// A shell command's exit status (0 = it worked).
int sh(const std::string &command) {
    return std::system(command.c_str());
}

TEST(DebuginfodCli, AnnotateNamesAStrippedModulesCodeFromItsDebugFile) {
    TempDir dir;
    RunResult r = record_with(dir, {"DEBUGINFOD_URLS="});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string id = build_id(WORKLOAD_FP);
    ASSERT_GT(id.size(), 2u);
    const std::string debug = dir.file("debug/.build-id/" + id.substr(0, 2));
    std::filesystem::create_directories(debug);
    ASSERT_EQ(sh("objcopy --only-keep-debug '" + std::string(WORKLOAD_FP) + "' '" + debug + "/" +
                 id.substr(2) + ".debug'"),
              0);
    RunResult s = run_cpcprof(dir, {"symbolize", "out.cpcprof", "--debug-dir", dir.file("debug")});
    ASSERT_EQ(s.status, 0) << s.err;
    // Without the directory the module is code without names; with it,
    // wl_compute's extent, lines and call targets come from the debug file.
    RunResult bare = run_cpcprof(dir, {"annotate", "out.cpcprof", "wl_compute", "--disassemble"});
    EXPECT_EQ(bare.out.find("named from"), std::string::npos) << bare.out;
    RunResult a = run_cpcprof(dir, {"annotate", "out.cpcprof", "wl_compute", "--disassemble",
                                    "--debug-dir", dir.file("debug")});
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find(": symbol wl_compute at 0x"), std::string::npos) << a.out;
    EXPECT_NE(a.out.find("named from " + debug + "/" + id.substr(2) + ".debug"), std::string::npos)
        << a.out;
    EXPECT_NE(a.out.find("workload.c:"), std::string::npos) << "no source lines:\n" << a.out;
}

// A program whose DWARF names its source under a directory that is empty
// here, and that the server sees with the source in it (its own mount
// namespace): annotate can read it only from the server.
TEST(DebuginfodCli, AnnotateFetchesTheSourceAndDebugFileFromARealServer) {
    if (std::system("command -v debuginfod >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "Debian's debuginfod is not installed (packaging/install-deps.sh "
                        "--tests installs it)";
    if (geteuid() != 0 || sh("unshare -m true 2>/dev/null") != 0)
        GTEST_SKIP() << "needs root and unshare -m (a mount namespace for the server, where "
                        "the source exists and here it does not)";
    TempDir dir;
    const std::string src = dir.file("src"), remote = dir.file("remote"),
                      served = dir.file("served");
    for (const std::string &d : {src, remote, served})
        std::filesystem::create_directories(d);
    {
        FILE *f = std::fopen((src + "/spin.c").c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("#include <time.h>\n"
                   "static volatile double sink;\n"
                   "__attribute__((noinline)) static double spin_inner(int n) {\n"
                   "    double x = 0;\n"
                   "    for (int i = 0; i < n; ++i)\n"
                   "        x += i * 0.5;\n"
                   "    return x;\n"
                   "}\n"
                   "int main(void) {\n"
                   "    struct timespec t;\n"
                   "    do {\n"
                   "        sink += spin_inner(1000000);\n"
                   "        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);\n"
                   "    } while (t.tv_sec * 1000000000L + t.tv_nsec < 300000000L);\n"
                   "    return 0;\n"
                   "}\n",
                   f);
        std::fclose(f);
    }
    ASSERT_EQ(sh("cc -g -O1 -fdebug-prefix-map=" + src + "=" + remote + " " + src + "/spin.c -o " +
                 served + "/spin && objcopy --strip-all " + served + "/spin " + dir.file("spin")),
              0);
    const std::string id = build_id(served + "/spin");
    ASSERT_FALSE(id.empty());
    const int port = closed_port();
    ASSERT_GT(port, 0);
    ProgramOptions so;
    so.own_group = true;
    so.out = "server.stdout";
    so.err = "server.stderr";
    pid_t server = start_program(
        dir,
        {"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
         "mount --bind '" + src + "' '" + remote + "' && exec debuginfod -F '" + served + "' -p " +
             std::to_string(port) + " -d '" + dir.file("index.sqlite") + "'"},
        so);
    struct Stop {
        pid_t pid;
        ~Stop() {
            kill(-pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    } stop{server};
    const std::string source_url = "/buildid/" + id + "/source" + remote + "/spin.c";
    int status = 0;
    for (int i = 0; i < 600 && status != 200; ++i) {
        status = http_status(port, source_url);
        if (status != 200)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(status, 200) << "debuginfod did not serve the source:\n"
                           << read_file(dir.file("server.stderr"));
    ASSERT_FALSE(std::filesystem::exists(remote + "/spin.c")) << "the source is here too";

    ProgramOptions o;
    o.env = {"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=" + dir.file("cache")};
    RunResult r =
        run_program(dir, {CPCPROF_EXE, "record", "-o", "out.cpcprof", "--", dir.file("spin")}, o);
    ASSERT_EQ(r.status, 0) << r.err;
    RunResult s = wait_symbolize(dir, start_symbolize(dir, {"--debuginfod", url(port)}));
    ASSERT_EQ(s.status, 0) << s.err;

    auto annotate = [&](std::vector<std::string> args, const std::string &cache) {
        std::vector<std::string> argv{CPCPROF_EXE, "annotate", "out.cpcprof", "main"};
        argv.insert(argv.end(), args.begin(), args.end());
        ProgramOptions ao;
        ao.env = {"DEBUGINFOD_URLS=" + url(port), "DEBUGINFOD_CACHE_PATH=" + dir.file(cache)};
        return run_program(dir, argv, ao);
    };
    RunResult a = annotate({}, "cache");
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.out.find("(fetched from " + url(port) + ", cached at " + dir.file("cache")),
              std::string::npos)
        << a.out << a.err;
    EXPECT_NE(a.out.find("clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);"), std::string::npos)
        << a.out;
    // A cache of its own: the debug file comes from the server.
    RunResult d = annotate({"--disassemble"}, "cache-disassembly");
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find(": symbol main at 0x"), std::string::npos) << d.out << d.err;
    EXPECT_NE(d.out.find(", fetched from " + url(port)), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<spin_inner>"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("spin.c:13"), std::string::npos) << d.out;
}

// A source lookup given up is not remembered as "no server has it": the
// next annotate asks again (elfutils 0.188 leaves an empty cache entry
// behind a lookup its progress callback ended).
TEST(DebuginfodCli, AGivenUpSourceLookupIsAskedAgain) {
    SilentServer server;
    ASSERT_GT(server.port, 0);
    TempDir dir;
    {
        FILE *f = std::fopen(dir.file("spin.c").c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("#include <time.h>\n"
                   "int main(void) {\n"
                   "    struct timespec t;\n"
                   "    volatile double x = 0;\n"
                   "    do {\n"
                   "        for (int i = 0; i < 100000; ++i)\n"
                   "            x += i;\n"
                   "        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);\n"
                   "    } while (t.tv_sec * 1000000000L + t.tv_nsec < 200000000L);\n"
                   "    return 0;\n"
                   "}\n",
                   f);
        std::fclose(f);
    }
    // Its own DWARF (no debug file is looked for), its source named where
    // no file is.
    ASSERT_EQ(sh("cc -g -O1 -fdebug-prefix-map=" + dir.path() + "=/nonexistent/x#y " +
                 dir.file("spin.c") + " -o " + dir.file("spin")),
              0);
    const std::string id = build_id(dir.file("spin"));
    ASSERT_FALSE(id.empty());
    ProgramOptions o;
    o.env = {"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=" + dir.file("cache")};
    RunResult r =
        run_program(dir, {CPCPROF_EXE, "record", "-o", "out.cpcprof", "--", dir.file("spin")}, o);
    ASSERT_EQ(r.status, 0) << r.err;
    auto annotate = [&] {
        return run_program(dir,
                           {CPCPROF_EXE, "annotate", "out.cpcprof", "main", "--debuginfod",
                            url(server.port), "--debuginfod-wait", "1"},
                           o);
    };
    for (int round = 0; round < 2; ++round) {
        while (server.asked()) {
        }
        RunResult a = annotate();
        ASSERT_EQ(a.status, 0) << a.err;
        EXPECT_TRUE(server.asked()) << "round " << round << ": the server was not asked\n" << a.err;
        std::error_code ec;
        for (const auto &e : std::filesystem::directory_iterator(dir.file("cache/" + id), ec))
            EXPECT_FALSE(e.path().filename().string().rfind("source", 0) == 0 &&
                         std::filesystem::file_size(e.path()) == 0)
                << "round " << round << ": " << e.path() << " says no server has the source";
    }
}

// A module with its own DWARF, and its source on this machine, never
// makes annotate ask a server, for its disassembly or its source.
TEST(DebuginfodCli, AnnotateAsksNoServerForAModuleWithItsOwnDebugInformation) {
    SilentServer server;
    ASSERT_GT(server.port, 0);
    TempDir dir;
    ProgramOptions o;
    o.env = {"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=" + dir.file("cache")};
    RunResult r = run_program(
        dir, {CPCPROF_EXE, "record", "-o", "out.cpcprof", "--", WORKLOAD_FP, "--seconds", "0.3"},
        o);
    ASSERT_EQ(r.status, 0) << r.err;
    for (bool disassemble : {true, false}) {
        std::vector<std::string> argv{CPCPROF_EXE,  "annotate",     "out.cpcprof",
                                      "wl_compute", "--debuginfod", url(server.port)};
        if (disassemble)
            argv.emplace_back("--disassemble");
        RunResult a = run_program(dir, argv, o);
        ASSERT_EQ(a.status, 0) << a.err;
        EXPECT_FALSE(server.pending()) << "a server was asked:\n" << a.err;
        EXPECT_EQ(a.err.find("fetching"), std::string::npos) << a.err;
        EXPECT_NE(a.out.find("workload.c"), std::string::npos) << a.out;
    }
}

} // namespace
