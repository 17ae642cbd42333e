// SPDX-License-Identifier: MIT
#include "profiler/record/debuginfod_pass.h"

#include "base/clock.h"
#include "base/scoped_fd.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char **environ;

namespace cpcprof::record {
namespace {

constexpr char kUrlsVariable[] = "DEBUGINFOD_URLS";
constexpr int64_t kGraceS = 5; // for the child to store what it has after its bound

volatile sig_atomic_t g_interrupted = 0;

void on_interrupt(int) {
    g_interrupted = 1;
}

// host and port of "http://host[:port]/..." or "https://[v6]:port"; false
// for anything else.
bool parse_url(const std::string &url, std::string *host, int *port) {
    size_t scheme = url.find("://");
    if (scheme == std::string::npos)
        return false;
    const std::string proto = url.substr(0, scheme);
    if (proto != "http" && proto != "https")
        return false;
    std::string rest = url.substr(scheme + 3);
    rest = rest.substr(0, rest.find('/'));
    if (size_t at = rest.rfind('@'); at != std::string::npos)
        rest = rest.substr(at + 1);
    *port = proto == "https" ? 443 : 80;
    std::string port_text;
    if (!rest.empty() && rest[0] == '[') {
        size_t end = rest.find(']');
        if (end == std::string::npos)
            return false;
        *host = rest.substr(1, end - 1);
        if (end + 1 < rest.size() && rest[end + 1] == ':')
            port_text = rest.substr(end + 2);
    } else {
        size_t colon = rest.find(':');
        *host = rest.substr(0, colon);
        if (colon != std::string::npos)
            port_text = rest.substr(colon + 1);
    }
    if (!port_text.empty()) {
        char *end = nullptr;
        long p = std::strtol(port_text.c_str(), &end, 10);
        if (*end != '\0' || p <= 0 || p > 65535)
            return false;
        *port = static_cast<int>(p);
    }
    return !host->empty();
}

// "" when the server took the connection or did not answer within
// timeout_ms (not judged here), else why it cannot be asked.
std::string connect_refusal(const std::string &host, int port, int timeout_ms) {
    sockaddr_storage addr{};
    socklen_t len = 0;
    const std::string numeric = host == "localhost" ? "127.0.0.1" : host;
    auto *v4 = reinterpret_cast<sockaddr_in *>(&addr);
    auto *v6 = reinterpret_cast<sockaddr_in6 *>(&addr);
    if (inet_pton(AF_INET, numeric.c_str(), &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(static_cast<uint16_t>(port));
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, numeric.c_str(), &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(static_cast<uint16_t>(port));
        len = sizeof *v6;
    } else {
        return ""; // a name: not looked up here
    }
    base::ScopedFd s(socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!s.valid())
        return "";
    int err = 0;
    if (connect(s.get(), reinterpret_cast<sockaddr *>(&addr), len) != 0) {
        if (errno != EINPROGRESS) {
            err = errno;
        } else {
            pollfd p{s.get(), POLLOUT, 0};
            if (poll(&p, 1, timeout_ms) != 1)
                return "";
            socklen_t elen = sizeof err;
            if (getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &elen) != 0)
                return "";
        }
    }
    if (err == ECONNREFUSED || err == ENETUNREACH || err == EHOSTUNREACH || err == EADDRNOTAVAIL)
        return std::strerror(err);
    return "";
}

} // namespace

std::string take_debuginfod_urls() {
    const char *value = std::getenv(kUrlsVariable);
    std::string urls = value != nullptr ? value : "";
    unsetenv(kUrlsVariable);
    if (urls.find_first_not_of(" \t\n") == std::string::npos)
        return "";
    return urls;
}

std::vector<std::string> refusing_servers(const std::string &urls) {
    std::vector<std::string> out;
    std::istringstream in(urls);
    std::string url;
    const int64_t deadline = base::monotonic_ns() + 1'000'000'000;
    while (in >> url) {
        std::string host;
        int port = 0;
        const int64_t left_ms = (deadline - base::monotonic_ns()) / 1'000'000;
        if (left_ms <= 0 || !parse_url(url, &host, &port))
            continue;
        std::string why = connect_refusal(host, port, static_cast<int>(left_ms));
        if (!why.empty())
            out.emplace_back(url).append(" (").append(why).append(")");
    }
    return out;
}

DebuginfodPass run_debuginfod_pass(const std::string &profile, const std::string &urls,
                                   double wait_s, bool quiet) {
    DebuginfodPass r;
    const int64_t start = base::monotonic_ns();
    // Everything the child needs is made before the fork: between fork and
    // exec it only calls what is safe in a copy of a threaded process.
    std::vector<std::string> env_text;
    for (char **e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "DEBUGINFOD_URLS=", 16) != 0)
            env_text.emplace_back(*e);
    env_text.push_back(std::string(kUrlsVariable) + "=" + urls);
    std::vector<char *> envp;
    envp.reserve(env_text.size() + 1);
    for (std::string &e : env_text)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    // The child gives its lookups up by itself at the bound and stores what
    // it has; it is killed only if it does not end a grace period later.
    const long long child_wait_s = std::max(1LL, static_cast<long long>(wait_s));
    std::string arg0 = "cpcprof", arg1 = "symbolize", arg2 = profile, arg3 = "--debuginfod-wait",
                arg4 = std::to_string(child_wait_s);
    char *argv[] = {arg0.data(), arg1.data(), arg2.data(), arg3.data(), arg4.data(), nullptr};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        r.error = std::string("cannot make a pipe: ") + std::strerror(errno);
        return r;
    }
    base::ScopedFd read_end(fds[0]), write_end(fds[1]);
    pid_t pid = fork();
    if (pid < 0) {
        r.error = std::string("cannot start cpcprof symbolize: ") + std::strerror(errno);
        return r;
    }
    if (pid == 0) {
        dup2(write_end.get(), STDERR_FILENO);
        signal(SIGINT, SIG_IGN); // until it sets its own: the recorder passes one on
        execve("/proc/self/exe", argv, envp.data());
        _exit(127);
    }
    write_end.reset();
    struct sigaction sa {
    }, old{};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    g_interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    int64_t deadline = start + static_cast<int64_t>(wait_s * 1e9) + kGraceS * 1'000'000'000;
    bool passed_on = false; // a Ctrl-C, passed on to the child
    std::string pending;    // the child's last line, not yet whole
    bool said_waiting = quiet;
    bool ended = false;
    while (!ended) {
        const int64_t now = base::monotonic_ns();
        if (g_interrupted && !passed_on) {
            // The child stops its lookups and stores what it has (a Ctrl-C
            // at a terminal reaches it too); it has the grace period.
            kill(pid, SIGINT);
            passed_on = true;
            deadline = std::min(deadline, now + kGraceS * 1'000'000'000);
            said_waiting = true;
        }
        if (now >= deadline) {
            r.outcome = passed_on ? DebuginfodPass::Outcome::interrupted
                                  : DebuginfodPass::Outcome::timed_out;
            break;
        }
        if (!said_waiting && now - start >= 1'000'000'000) {
            std::fprintf(stderr,
                         "cpcprof: asking debuginfod servers (%s) for the debug files this "
                         "machine lacks, up to %.0f s (--debuginfod-wait; Ctrl-C stops)\n",
                         urls.c_str(), wait_s);
            said_waiting = true;
        }
        int64_t until = said_waiting ? deadline : std::min(deadline, start + 1'000'000'000);
        int timeout_ms = static_cast<int>((until - now + 999'999) / 1'000'000);
        pollfd p{read_end.get(), POLLIN, 0};
        int n = poll(&p, 1, timeout_ms);
        if (n < 0 && errno != EINTR) {
            r.error = std::string("cannot wait for cpcprof symbolize: ") + std::strerror(errno);
            break;
        }
        if (n == 1) {
            char buf[4096];
            ssize_t got = read(read_end.get(), buf, sizeof buf);
            if (got > 0) {
                // Progress lines are passed on as they come; the rest is
                // said when the child ends.
                pending.append(buf, size_t(got));
                for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
                    std::string line = pending.substr(0, nl + 1);
                    pending.erase(0, nl + 1);
                    if (line.starts_with("cpcprof: fetching ")) {
                        if (!quiet)
                            std::fputs(line.c_str(), stderr);
                    } else {
                        r.said += line;
                    }
                }
            } else if (got == 0 || errno != EINTR)
                ended = true; // the child's stderr closed: it ends
        }
    }
    r.said += pending;
    if (!ended) {
        kill(pid, SIGKILL);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old, nullptr);
    r.seconds = double(base::monotonic_ns() - start) / 1e9;
    if (ended) {
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            r.outcome = DebuginfodPass::Outcome::done;
        } else {
            r.outcome = DebuginfodPass::Outcome::failed;
            r.error =
                WIFEXITED(status)
                    ? "cpcprof symbolize exited with status " + std::to_string(WEXITSTATUS(status))
                    : "cpcprof symbolize ended by signal " + std::to_string(WTERMSIG(status));
        }
    }
    return r;
}

} // namespace cpcprof::record
