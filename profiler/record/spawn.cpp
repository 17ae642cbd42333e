// SPDX-License-Identifier: MIT
#include "profiler/record/spawn.h"
#include "base/paths.h"
#include "base/seccomp_status.h"

#include "profiler/protocol/elf_static.h"
#include "profiler/protocol/protocol.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

// The agent's directory relative to the installed cpcprof's bin/: for
// example "../lib/x86_64-linux-gnu/cpcprof" (CMAKE_INSTALL_LIBDIR, made
// relative to CMAKE_INSTALL_BINDIR), so that an installed tree can move.
#ifndef CPCPROF_AGENT_RELDIR
#define CPCPROF_AGENT_RELDIR "../lib/cpcprof"
#endif

namespace cpcprof::record {

namespace {

// Whether this process's seccomp filters, which the command inherits, let
// process_vm_readv on oneself return (the agent's copy of a stack of the
// program's own making, profiler/agent/unwind.h): tried in a fork child,
// which a filter's kill action may kill without harm.
bool stack_copies_allowed() {
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        uint64_t word = 1, out = 0;
        iovec local{&out, sizeof out}, remote{&word, sizeof word};
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        _exit(n == ssize_t(sizeof out) && out == 1 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string self_dir() {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return ".";
    return base::dir_name(std::string_view(buf, size_t(n)));
}

void set_env(const Options &o, const Plan &p, const std::string &agent, int fd,
             const std::string &cfi_cache) {
    std::string preload = agent;
    if (const char *old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0')
        preload += std::string(":") + old;
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv(proto::kEnvChannel, std::to_string(fd).c_str(), 1);
    setenv(proto::kEnvEvents, events_env(p).c_str(), 1);
    setenv(proto::kEnvCallGraph, o.call_graph.c_str(), 1);
    setenv(proto::kEnvMaxDepth, std::to_string(o.max_depth).c_str(), 1);
    setenv(proto::kEnvRingKb, std::to_string(o.ring_kb).c_str(), 1);
    setenv(proto::kEnvChildren, o.children ? "1" : "0", 1);
    setenv(proto::kEnvSigemtStable, "1", 1);
    // plan_events made this process's perf_event_open calls under its
    // filters, and they returned.
    base::SeccompStatus sc = base::read_seccomp_status();
    if (sc.mode == 2 && sc.filters > 0)
        setenv(proto::kEnvSeccompFilters, std::to_string(sc.filters).c_str(), 1);
    else
        unsetenv(proto::kEnvSeccompFilters);
    if (sc.mode == 0 || (sc.mode == 2 && stack_copies_allowed()))
        setenv(proto::kEnvStackCopies, "1", 1);
    else
        unsetenv(proto::kEnvStackCopies);
    if (!cfi_cache.empty())
        setenv(proto::kEnvCfiCache, cfi_cache.c_str(), 1);
    if (o.stats)
        setenv(proto::kEnvStats, "1", 1);
    if (p.kernel)
        setenv(proto::kEnvKernel, "1", 1);
    else
        unsetenv(proto::kEnvKernel);
    if (ring_fallback(o, p))
        setenv(proto::kEnvRings, "1", 1);
    else
        unsetenv(proto::kEnvRings);
}

} // namespace

std::optional<std::string> find_agent(std::string *error) {
    std::vector<std::string> candidates;
    if (const char *env = std::getenv("CPCPROF_AGENT"))
        candidates.push_back(env);
    std::string dir = self_dir();
    // Installed: PREFIX/bin/cpcprof and PREFIX/LIBDIR/cpcprof/; build tree:
    // build/profiler/cpcprof/cpcprof and build/profiler/agent/.
    candidates.push_back(dir + "/" CPCPROF_AGENT_RELDIR "/libcpcprof-agent.so");
    candidates.push_back(dir + "/../agent/libcpcprof-agent.so");
    for (const std::string &c : candidates) {
        char real[4096];
        if (realpath(c.c_str(), real) != nullptr && access(real, R_OK) == 0)
            return std::string(real);
    }
    std::string looked;
    for (const std::string &c : candidates)
        looked += (looked.empty() ? "" : ", ") + c;
    *error =
        "cannot find libcpcprof-agent.so (looked in " + looked + "; set CPCPROF_AGENT to its path)";
    return std::nullopt;
}

std::optional<std::string> static_command(const Options &o) {
    char path[4096];
    if (o.command.empty() ||
        !elf::resolve_in_path(o.command[0].c_str(), std::getenv("PATH"), path, sizeof path) ||
        !elf::is_static_elf(path))
        return std::nullopt;
    return std::string(path);
}

namespace {

// Forks and execs o.command.  With an agent: preloaded, the channel
// inherited.  With before_exec: the child waits on a pipe before its exec
// until the parent has called it.
std::optional<Target> spawn(const Options &o, const Plan *p, const std::string *agent,
                            const std::string &cfi_cache,
                            const std::function<bool(pid_t, std::string *)> *before_exec,
                            std::string *error) {
    // Every descriptor is owned from its creation: none is left open on an
    // early return (the child leaves by exec or _exit, running no destructor).
    int fds[2];
    base::ScopedFd ours, theirs;
    if (agent != nullptr) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
            *error = std::string("socketpair: ") + std::strerror(errno);
            return std::nullopt;
        }
        ours.reset(fds[0]);
        theirs.reset(fds[1]);
    }
    if (pipe2(fds, O_CLOEXEC) != 0) { // exec failure: the child writes errno here
        *error = std::string("pipe: ") + std::strerror(errno);
        return std::nullopt;
    }
    base::ScopedFd report_in(fds[0]), report_out(fds[1]);
    base::ScopedFd go_in, go_out; // held: one byte lets the child exec
    if (before_exec != nullptr) {
        if (pipe2(fds, O_CLOEXEC) != 0) {
            *error = std::string("pipe: ") + std::strerror(errno);
            return std::nullopt;
        }
        go_in.reset(fds[0]);
        go_out.reset(fds[1]);
    }
    std::vector<std::string> args = o.command;
    pid_t pid = fork();
    if (pid < 0) {
        *error = std::string("fork: ") + std::strerror(errno);
        return std::nullopt;
    }
    if (pid == 0) {
        ours.reset();
        report_in.reset();
        go_out.reset();
        if (agent != nullptr) {
            // The agent finds it after exec, at a number far from the low
            // ones that programs hand out to each other (fd 3 of a shell's
            // "3>", systemd's LISTEN_FDS).
            int channel = theirs.get();
            rlimit rl{};
            long high = getrlimit(RLIMIT_NOFILE, &rl) == 0
                            ? long(std::min<rlim_t>(rl.rlim_cur, 1024)) - 32
                            : 0;
            int moved = high > 10 ? fcntl(theirs.get(), F_DUPFD, static_cast<int>(high)) : -1;
            if (moved >= 0) {
                theirs.reset();
                channel = moved;
            } else {
                fcntl(theirs.get(), F_SETFD, 0);
            }
            set_env(o, *p, *agent, channel, cfi_cache);
        }
        if (go_in.valid()) {
            char go = 0;
            ssize_t got;
            while ((got = read(go_in.get(), &go, 1)) < 0 && errno == EINTR) {
            }
            if (got != 1)
                _exit(127); // the parent gave up: it says why
        }
        std::vector<char *> argv;
        for (std::string &a : args)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        execvp(argv[0], argv.data());
        int e = errno;
        ssize_t n = write(report_out.get(), &e, sizeof e);
        (void)n;
        _exit(127);
    }
    theirs.reset();
    report_out.reset();
    go_in.reset();
    if (before_exec != nullptr) {
        if (!(*before_exec)(pid, error)) {
            go_out.reset(); // the child ends without running the command
            waitpid(pid, nullptr, 0);
            return std::nullopt;
        }
        char go = 1;
        if (write(go_out.get(), &go, 1) != 1) {
            *error = std::string("cannot start the command: ") + std::strerror(errno);
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
            return std::nullopt;
        }
        go_out.reset();
    }
    int e = 0;
    ssize_t n = read(report_in.get(), &e, sizeof e);
    if (n == sizeof e) {
        waitpid(pid, nullptr, 0);
        *error = "cannot run '" + o.command[0] + "': " + std::strerror(e);
        return std::nullopt;
    }
    return Target{pid, std::move(ours)};
}

} // namespace

std::optional<Target> spawn_target(const Options &o, const Plan &p, const std::string &agent,
                                   const std::string &cfi_cache, std::string *error,
                                   const std::function<bool(pid_t, std::string *)> *before_exec) {
    return spawn(o, &p, &agent, cfi_cache, before_exec, error);
}

std::optional<Target> spawn_held(const Options &o,
                                 const std::function<bool(pid_t, std::string *)> &before_exec,
                                 std::string *error) {
    return spawn(o, nullptr, nullptr, "", &before_exec, error);
}

} // namespace cpcprof::record
