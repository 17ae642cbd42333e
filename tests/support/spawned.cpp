// SPDX-License-Identifier: MIT
#include "tests/support/spawned.h"

#include "tests/support/files.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace cpcprof::test {

Spawned::Spawned(const std::vector<std::string> &argv, uid_t uid, uid_t euid) {
    int fds[2];
    if (pipe(fds) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");
    pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        throw std::system_error(e, std::generic_category(), "fork");
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        if (uid != 0 || euid != 0) {
            if (setresgid(65534, 65534, 65534) != 0 || setresuid(uid, euid, euid) != 0)
                _exit(126);
        }
        std::vector<char *> args;
        for (const std::string &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    out = fds[0];
}

Spawned::~Spawned() {
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
    }
    close(out);
}

std::string Spawned::line() {
    std::string s;
    char c;
    while (read(out, &c, 1) == 1 && c != '\n')
        s += c;
    return s;
}

int Spawned::wait() {
    int st = -1;
    waitpid(pid, &st, 0);
    pid = -1;
    return st;
}

pid_t tracer_of(pid_t pid) {
    std::string s = read_file("/proc/" + std::to_string(pid) + "/status");
    size_t at = s.find("TracerPid:");
    return at == std::string::npos ? -1 : std::atoi(s.c_str() + at + 10);
}

} // namespace cpcprof::test
