// SPDX-License-Identifier: MIT
// What libpctx reads about a process or thread from /proc.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace pctx::proc {

// /proc/<tid>/status, the fields libpctx uses.
struct Status {
    bool ok = false;  // the file could be read
    char state = '?'; // R, S, D, T, t, Z, X, ...
    pid_t tgid = 0;
    pid_t ppid = 0;
    pid_t tracer = 0;
    int threads = 0;
    uid_t uid[4] = {}; // real, effective, saved, filesystem
    gid_t gid[4] = {};
    bool kthread = false;
    unsigned long long cap_eff = 0;
};

Status status(pid_t tid);

// The thread ids of process pid (/proc/<pid>/task), ascending.
std::vector<pid_t> tasks(pid_t pid);

// argv of pid joined with spaces (illumos pr_psargs, not truncated).
std::string cmdline(pid_t pid);

// The system call thread tid is in (/proc/<tid>/syscall), -1 when it is
// in none or the kernel does not say.
long syscall_nr(pid_t tid);

} // namespace pctx::proc
