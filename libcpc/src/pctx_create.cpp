// SPDX-License-Identifier: MIT
// pctx_create: a new process, under control from its first instruction.
//
// The program is looked up in PATH as execvp(3) does, before fork, so that
// the child only waits and calls execv.  The child waits on a pipe until
// the parent has seized it (PTRACE_SEIZE with PTRACE_O_EXITKILL: illumos
// kill-on-last-close), then execs; the parent waits for
// PTRACE_EVENT_EXEC, where the process stays stopped until pctx_run.  An
// exec failure comes back through a close-on-exec pipe.
#include "libcpc/src/pctx_access.h"
#include "libcpc/src/pctx_ptrace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

namespace pctx {

namespace {

const char kFn[] = "create";

// execvp's search: "" and *err (ENOENT, EACCES) when nothing is found.
std::string find_program(const char *file, int *err) {
    if (std::strchr(file, '/') != nullptr)
        return file;
    const char *path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/bin:/usr/bin";
    bool denied = false;
    size_t start = 0;
    for (;;) {
        size_t colon = dirs.find(':', start);
        std::string dir = dirs.substr(start, colon == std::string::npos ? colon : colon - start);
        std::string cand = (dir.empty() ? "." : dir) + "/" + file;
        struct stat sb;
        if (stat(cand.c_str(), &sb) == 0 && S_ISREG(sb.st_mode)) {
            if (access(cand.c_str(), X_OK) == 0)
                return cand;
            denied = true;
        }
        if (colon == std::string::npos)
            break;
        start = colon + 1;
    }
    *err = denied ? EACCES : ENOENT;
    return "";
}

void say_why(pctx_errfn_t *errfn, const char *file, int e) {
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        report_to(errfn, kFn, "cannot find program '%s'\n", file);
        break;
    case EACCES:
    case ENOEXEC:
    case EISDIR:
        report_to(errfn, kFn, "cannot execute program '%s'\n", file);
        break;
    default:
        report_to(errfn, kFn, "%s, program '%s'\n", std::strerror(e), file);
        break;
    }
}

[[noreturn]] void child_side(int gate, int errp, const char *path, char *const *argv) {
    char c;
    while (read(gate, &c, 1) < 0 && errno == EINTR) {
    }
    execv(path, argv);
    int e = errno;
    ssize_t n = write(errp, &e, sizeof e);
    (void)n;
    _exit(127);
}

// Waits for the exec; passes on anything else (an exec failure ends in
// _exit, seen as PTRACE_EVENT_EXIT then the end).
bool wait_exec(pid_t pid) {
    int status;
    while (wait_task(pid, &status)) {
        Stop s = decode(status);
        if (s.kind == Stop::dead)
            return false;
        if (s.kind == Stop::event_stop && s.event == PTRACE_EVENT_EXEC)
            return true;
        int sig = s.kind == Stop::signal ? s.sig : 0;
        ptrace(PTRACE_CONT, pid, nullptr, reinterpret_cast<void *>(uintptr_t(sig)));
    }
    return false;
}

} // namespace

} // namespace pctx

using namespace pctx;

extern "C" pctx_t *pctx_create(const char *filename, char *const *argv, void *arg, int verbose,
                               pctx_errfn_t *errfn) {
    if (filename == nullptr || argv == nullptr) {
        errno = EINVAL;
        return nullptr;
    }
    int err = 0;
    std::string path = find_program(filename, &err);
    if (path.empty()) {
        say_why(errfn, filename, err);
        errno = err;
        return nullptr;
    }
    if (int e = program_refusal(path.c_str())) {
        if (e == EACCES)
            report_to(errfn, kFn, "cannot trace set-id or unreadable program '%s'\n", filename);
        else
            say_why(errfn, filename, e);
        errno = e;
        return nullptr;
    }
    int gate[2], errp[2];
    if (pipe2(gate, O_CLOEXEC) != 0)
        return nullptr;
    if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(gate[0]);
        close(gate[1]);
        return nullptr;
    }
    pid_t pid = fork();
    if (pid == 0)
        child_side(gate[0], errp[1], path.c_str(), argv);
    int fork_errno = errno;
    close(gate[0]);
    close(errp[1]);
    int e = pid < 0 ? fork_errno : seize(pid, true);
    if (e == 0 && write(gate[1], "x", 1) != 1)
        e = errno;
    close(gate[1]);
    if (e != 0) {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, __WALL);
        }
        close(errp[0]);
        report_to(errfn, kFn, "cannot %s, program '%s': %s\n", pid < 0 ? "fork" : "trace", filename,
                  std::strerror(e));
        errno = e == EPERM ? EACCES : e;
        return nullptr;
    }
    bool execd = wait_exec(pid);
    int child_errno = 0;
    if (!execd && read(errp[0], &child_errno, sizeof child_errno) != sizeof child_errno)
        child_errno = ECHILD;
    close(errp[0]);
    if (!execd) {
        waitpid(pid, nullptr, __WALL | WNOHANG);
        say_why(errfn, filename, child_errno);
        errno = child_errno;
        return nullptr;
    }
    pctx_t *p = new_handle(arg, verbose, errfn);
    if (p == nullptr) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, __WALL);
        return nullptr;
    }
    p->pid = pid;
    p->created = true;
    p->tasks[pid].stopped = true;
    return p;
}
