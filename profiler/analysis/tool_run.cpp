// SPDX-License-Identifier: MIT
#include "profiler/analysis/tool_run.h"

#include "base/scoped_fd.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace cpcprof::analysis {

ToolResult run_tool(const std::vector<std::string> &argv, size_t max_out, int timeout_ms) {
    ToolResult r;
    if (argv.empty()) {
        r.error = "no command";
        return r;
    }
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        r.error = argv[0] + ": pipe: " + std::strerror(errno);
        return r;
    }
    base::ScopedFd out_r(out_pipe[0]), out_w(out_pipe[1]);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        r.error = argv[0] + ": pipe: " + std::strerror(errno);
        return r;
    }
    base::ScopedFd err_r(err_pipe[0]), err_w(err_pipe[1]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
    posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
    // The C locale: the output is parsed ("LOAD off", "inlined by").
    std::vector<std::string> env_text;
    for (char **e = environ; *e != nullptr; ++e) {
        std::string_view v(*e);
        if (v.rfind("LC_", 0) != 0 && v.rfind("LANG=", 0) != 0 && v.rfind("LANGUAGE=", 0) != 0)
            env_text.emplace_back(v);
    }
    env_text.emplace_back("LC_ALL=C");
    std::vector<char *> env;
    env.reserve(env_text.size() + 1);
    for (std::string &e : env_text)
        env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<char *> args;
    args.reserve(argv.size() + 1);
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        r.error = argv[0] + ": " +
                  (rc == ENOENT ? std::string("not found (install binutils)")
                                : std::string(std::strerror(rc)));
        return r;
    }
    out_w.reset();
    err_w.reset();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    bool out_open = true, err_open = true;
    char buf[65536];
    while ((out_open || err_open) && r.error.empty()) {
        pollfd fds[2] = {{out_open ? out_r.get() : -1, POLLIN, 0},
                         {err_open ? err_r.get() : -1, POLLIN, 0}};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0) {
            r.error = argv[0] + ": still running after " + std::to_string(timeout_ms / 1000) +
                      " s; stopped";
            break;
        }
        int n = ::poll(fds, 2, int(left));
        if (n < 0 && errno == EINTR)
            continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                (i == 0 ? out_open : err_open) = false;
                continue;
            }
            if (i == 0) {
                r.out.append(buf, size_t(got));
                if (r.out.size() > max_out)
                    r.error = argv[0] + ": more than " + std::to_string(max_out >> 20) +
                              " MiB of output; stopped";
            } else if (r.err.size() < 65536) {
                r.err.append(buf, size_t(got));
            }
        }
    }
    if (!r.error.empty())
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (r.error.empty()) {
        r.ran = true;
        if (WIFEXITED(status))
            r.status = WEXITSTATUS(status);
        else
            r.error = argv[0] + ": killed by signal " + std::to_string(WTERMSIG(status));
        r.ran = r.error.empty();
    }
    return r;
}

} // namespace cpcprof::analysis
