// SPDX-License-Identifier: MIT
#include "tests/view_common/limited_run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace cpcprof::test {

LimitedRun run_limited(const TempDir &dir, const std::vector<std::string> &args,
                       const Limits &limits) {
    LimitedRun r;
    const std::string out = dir.file("limited.out"), err = dir.file("limited.err");
    std::vector<std::string> argv_s = {CPCPROF_EXE};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &a : argv_s)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || chdir(dir.path().c_str()) != 0)
            _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        if (limits.stack_kib != 0) {
            rlimit l{limits.stack_kib * 1024, limits.stack_kib * 1024};
            if (setrlimit(RLIMIT_STACK, &l) != 0)
                _exit(125);
        }
        if (limits.memory_mib != 0) {
            rlimit l{limits.memory_mib << 20, limits.memory_mib << 20};
            if (setrlimit(RLIMIT_AS, &l) != 0)
                _exit(125);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    if (pid < 0)
        return r;
    int status = 0;
    rusage usage{};
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.timeout_s);
    for (;;) {
        pid_t got = wait4(pid, &status, WNOHANG, &usage);
        if (got == pid)
            break;
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.cpu_s = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
              double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    r.max_rss_kib = usage.ru_maxrss;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

} // namespace cpcprof::test
