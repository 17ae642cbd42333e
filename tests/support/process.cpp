// SPDX-License-Identifier: MIT
#include "tests/support/process.h"

#include "tests/support/files.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace cpcprof::test {

double monotonic_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

namespace {

int shell_status(int st) {
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// In a child, after fork: exec argv, or _exit(127).
[[noreturn]] void exec(const std::vector<std::string> &argv, bool search_path) {
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    if (search_path)
        execvp(args[0], args.data());
    else
        execv(args[0], args.data());
    _exit(127);
}

void make_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe2");
}

} // namespace

pid_t start_program(const TempDir &dir, const std::vector<std::string> &argv,
                    const ProgramOptions &o) {
    std::string out = dir.file(o.out), err = dir.file(o.err);
    pid_t pid = fork();
    if (pid < 0)
        throw std::system_error(errno, std::generic_category(), "fork");
    if (pid == 0) {
        if (o.own_group)
            setpgid(0, 0);
        if (chdir(dir.path().c_str()) != 0)
            _exit(126);
        int fo = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fi = open("/dev/null", O_RDONLY);
        if (fo < 0 || fe < 0 || fi < 0 || dup2(fi, 0) < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(126);
        // Nothing of the test's reaches the program.
        syscall(SYS_close_range, 3u, ~0u, 0u);
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
        exec(argv, false);
    }
    return pid;
}

RunResult wait_program(const TempDir &dir, pid_t pid, const ProgramOptions &o, int timeout_s) {
    RunResult r;
    int status = 0;
    if (timeout_s <= 0) {
        if (waitpid(pid, &status, 0) != pid)
            return r;
    } else {
        for (int waited_ms = 0;; waited_ms += 5) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid)
                break;
            if (w < 0)
                return r;
            if (waited_ms >= timeout_s * 1000 && !r.timed_out) {
                r.timed_out = true;
                kill(o.own_group ? -pid : pid, SIGKILL);
            }
            usleep(5000);
        }
    }
    r.status = shell_status(status);
    r.out = read_file(dir.file(o.out));
    r.err = read_file(dir.file(o.err));
    return r;
}

RunResult run_program(const TempDir &dir, const std::vector<std::string> &argv,
                      const ProgramOptions &o) {
    return wait_program(dir, start_program(dir, argv, o), o);
}

int run_quiet(const std::vector<std::string> &argv) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 1);
        dup2(null, 2);
        exec(argv, true);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

Captured run_capturing(const std::vector<std::string> &argv, const CaptureOptions &o) {
    int out[2], err[2];
    make_pipe(out);
    make_pipe(err);
    double t0 = monotonic_s();
    pid_t pid = fork();
    if (pid < 0)
        throw std::system_error(errno, std::generic_category(), "fork");
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        if (o.uid != 0 && (setgroups(0, nullptr) != 0 || setgid(o.uid) != 0 || setuid(o.uid) != 0))
            _exit(126);
        exec(argv, false);
    }
    close(out[1]);
    close(err[1]);
    Captured r;
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string *dest[2] = {&r.out, &r.err};
    bool signalled = false, exited = false;
    int st = 0;
    rusage ru{};
    auto reap = [&](int flags) {
        if (!exited && wait4(pid, &st, flags, &ru) == pid) {
            exited = true;
            r.seconds = monotonic_s() - t0;
        }
    };
    while (true) {
        bool pending = o.sigint_after > 0 && !signalled;
        if (fds[0].fd < 0 && fds[1].fd < 0 && (exited || !pending))
            break;
        int n = poll(fds, 2, pending || o.until_exit || o.watch ? 20 : 1000);
        for (int i = 0; n > 0 && i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
                continue;
            char buf[4096];
            ssize_t k = read(fds[i].fd, buf, sizeof buf);
            if (k > 0) {
                dest[i]->append(buf, size_t(k));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
            }
        }
        if (o.watch)
            o.watch(r.out);
        if (o.until_exit && exited && n <= 0)
            break; // everything it wrote has been read
        reap(WNOHANG);
        if (pending && monotonic_s() - t0 >= o.sigint_after) {
            kill(pid, SIGINT);
            signalled = true;
        }
    }
    for (int fd : {fds[0].fd, fds[1].fd})
        if (fd >= 0)
            close(fd);
    reap(0);
    r.cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    r.status = shell_status(st);
    return r;
}

} // namespace cpcprof::test
