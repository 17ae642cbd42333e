// SPDX-License-Identifier: MIT
// `cpcprof record` with DEBUGINFOD_URLS: a stripped bundled program gets
// its names from Debian's real debuginfod serving the unstripped one on
// loopback; a server that accepts and never answers holds the end of the
// recording for --debuginfod-wait only, and the file is whole; a port
// where nothing listens is named once and not waited for.
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include "profiler/analysis/query.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

} // namespace
