// SPDX-License-Identifier: MIT
// The object behind pctx_t, and what the pctx_*.cpp files share.
//
// A handle controls one process through ptrace(2): every thread of it is
// PTRACE_SEIZEd by the thread that made the handle (the tracer), with
// TRACECLONE, TRACEFORK, TRACEVFORK, TRACEEXEC and TRACEEXIT.  The process
// stops only at those events (and at signals, which are passed on); ticks
// never stop it.  See pctx_run.cpp for the event loop.
#pragma once

#include "libcpc/src/pctx_private.h"
#include "libpctx.h"

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <vector>

namespace pctx {

inline constexpr uint32_t kMagic = 0x50435458; // "PCTX"

// One thread of the controlled process, as the tracer knows it.
struct Task {
    bool stopped = false;    // in a ptrace-stop that we have not resumed
    int resume_sig = 0;      // signal to deliver when resumed
    bool group_stop = false; // job-control stop: resumed with PTRACE_LISTEN
    bool exiting = false;    // past PTRACE_EVENT_EXIT or dead: no more ticks
    bool finished = false;   // fini_lwp called, observers told
};

enum class Phase {
    attached, // traced and stopped, pctx_run not called yet
    running,  // inside pctx_run
    let_go,   // detached (pctx_run returned with the process alive)
    ended,    // the process is gone
};

struct Observer {
    __pctx_lwp_gone_fn *fn;
    void *cookie;
};

} // namespace pctx

struct __pctx {
    uint32_t magic = pctx::kMagic;
    pctx_errfn_t *errfn = nullptr; // null: stderr
    void *uarg = nullptr;
    int verbose = 0;

    // Callbacks; null means the default (do nothing, return 0).
    pctx_sysc_execfn_t *exec = nullptr;
    pctx_sysc_forkfn_t *fork = nullptr;
    pctx_sysc_exitfn_t *exit = nullptr;
    pctx_sysc_lwp_createfn_t *lwp_create = nullptr;
    pctx_init_lwpfn_t *init_lwp = nullptr;
    pctx_fini_lwpfn_t *fini_lwp = nullptr;
    pctx_sysc_lwp_exitfn_t *lwp_exit = nullptr;

    pid_t pid = 0;
    bool created = false; // pctx_create: killed if the tracer dies
    pid_t tracer_pid = 0; // the process that traces; its fork children cannot
    pid_t tracer_tid = 0;
    pctx::Phase phase = pctx::Phase::attached;
    std::map<pid_t, pctx::Task> tasks; // live threads, by tid
    // Reports of tasks not known yet: a new thread's (or fork child's)
    // first stop can come before its creator's clone (fork) event.
    std::map<pid_t, int> early;

    // pctx_run state (illumos: 1 go on, 0 done, -1 failed).
    int running = 1;
    bool in_run = false;
    bool fini_failed = false; // a fini_lwp at process exit returned non-zero
    pid_t exit_lwp = 0;       // the thread whose exit ended the process
    std::atomic<bool> terminate{false};

    pid_t current_lwp = 0; // thread whose callback runs (libcpc asks)
    std::vector<pctx::Observer> observers;
};

namespace pctx {

inline bool valid(const pctx_t *p) {
    return p != nullptr && p->magic == kMagic;
}

// A new handle with the common fields set; the tracer is the caller.
pctx_t *new_handle(void *arg, int verbose, pctx_errfn_t *errfn);
void free_handle(pctx_t *p);

// Reports through the handle's errfn, or "libpctx: pctx_<fn>: " on stderr.
// fmt ends in a newline (illumos convention).  errno is preserved.
void report(const pctx_t *p, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
// The same before a handle exists.
void report_to(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

// Whether the calling process is the one that traces p (not a fork child).
bool is_tracer(const pctx_t *p);
// Whether the calling thread is the one that traces p: ptrace requests
// work only there.
bool is_tracer_thread(const pctx_t *p);

// Tells the observers that lwpid (0: the handle) is finished.
void notify_gone(pctx_t *p, pid_t lwpid);

// Callback wrappers: set current_lwp around the call; a null callback is
// the default (0).
int call_init_lwp(pctx_t *p, pid_t tid);
int call_fini_lwp(pctx_t *p, pid_t tid);
int call_lwp_create(pctx_t *p, pid_t tid);
int call_lwp_exit(pctx_t *p, pid_t tid);
int call_exec(pctx_t *p, pid_t tid, char *name);
void call_exit(pctx_t *p, pid_t tid, int status);
int call_tick(pctx_t *p, int (*tick)(pctx_t *, pid_t, id_t, void *), pid_t tid);

// Lets every thread of the process go (pctx_ptrace.cpp).
void let_go(pctx_t *p);

// Event handlers of pctx_run (pctx_lwp.cpp); tid is stopped at the event.
void on_clone(pctx_t *p, pid_t tid, pid_t child);
void on_exit_stop(pctx_t *p, pid_t tid);
void on_exec(pctx_t *p, pid_t tid, pid_t former);
void on_death(pctx_t *p, pid_t tid, int status);

// A fork (vfork, or clone of a new process) by thread tid (pctx_fork.cpp):
// the child is followed under a new controlling process when p has a fork
// callback, else let go at once.
void on_fork(pctx_t *p, pid_t tid, pid_t child);

} // namespace pctx
