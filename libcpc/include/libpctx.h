// SPDX-License-Identifier: MIT
/*
 * libpctx.h: process context library (illumos libpctx), on Linux over
 * ptrace(2).  A controlling process creates or captures a target process,
 * is called back at its process and thread events, and can bind counters
 * to its threads with cpc_bind_pctx(3CPC).
 *
 * Threads: a handle is traced by the thread that created it
 * (pctx_create, pctx_capture); pctx_set_events, pctx_run and pctx_release
 * must be called from that thread.  pctx_terminate may be called from any
 * thread and from a signal handler [async-signal-safe].  No function may be
 * called from a signal handler otherwise.
 *
 * Errors are reported through the pctx_errfn_t given at creation, with the
 * short function name ("create", "capture", "run", "set_events") and a
 * printf format that ends in a newline, as illumos does; without one they
 * go to stderr as "libpctx: pctx_<fn>: <message>".
 *
 * Differences from illumos are listed in pctx_capture(3CPC) and
 * pctx_set_events(3CPC).
 */
#ifndef LIBPCTX_H
#define LIBPCTX_H

#include <stdarg.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Also declared by <libcpc.h>; either header may come first. */
#ifndef _PCTX_T_DECLARED
#define _PCTX_T_DECLARED
typedef struct __pctx pctx_t;
#endif

typedef void(pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

typedef enum {
    PCTX_NULL_EVENT = 0,
    PCTX_SYSC_EXEC_EVENT,
    PCTX_SYSC_FORK_EVENT,
    PCTX_SYSC_EXIT_EVENT,
    PCTX_SYSC_LWP_CREATE_EVENT,
    PCTX_INIT_LWP_EVENT,
    PCTX_FINI_LWP_EVENT,
    PCTX_SYSC_LWP_EXIT_EVENT
} pctx_event_t;

/*
 * Callbacks.  pid is the controlled process, lwpid a thread id (gettid(2)
 * of the target thread).  A non-zero return from an int callback makes
 * pctx_run let the process go and return -1, as on illumos (the return of
 * lwp_exit is ignored).  exit receives a wait status (waitpid(2)).
 */
typedef int pctx_sysc_execfn_t(pctx_t *, pid_t, id_t, char *, void *);
typedef void pctx_sysc_forkfn_t(pctx_t *, pid_t, pid_t, id_t, void *);
typedef void pctx_sysc_exitfn_t(pctx_t *, pid_t, id_t, int, void *);
typedef int pctx_sysc_lwp_createfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_init_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_fini_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_sysc_lwp_exitfn_t(pctx_t *, pid_t, id_t, void *);

/*
 * Starts filename (searched in PATH when it has no '/') with argv, stopped
 * right after its exec, under control.  It is killed if the controlling
 * process dies; pctx_release lets it run.
 */
extern pctx_t *pctx_create(const char *filename, char *const *argv, void *arg, int verbose,
                           pctx_errfn_t *errfn);
/*
 * Takes control of process pid and all its threads, stopping them until
 * pctx_run.  NULL with errno ESRCH (no such process, or a zombie), EACCES
 * (another user's or a set-id process, when the caller is not privileged;
 * or refused by the kernel), EBUSY (already traced), EPERM (a kernel
 * thread), EINVAL (the calling process itself).
 */
extern pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn);
/* Pairs of pctx_event_t and callback, ending with PCTX_NULL_EVENT. */
extern int pctx_set_events(pctx_t *pctx, ...);
/*
 * Runs the process, calling the callbacks at its events and tick every msec
 * milliseconds for each thread (at most nsamples times; 0 = no limit),
 * until it exits, a callback fails, nsamples ticks were made or
 * pctx_terminate is called.  Ticks do not stop the process.  When it
 * returns with the process alive, the process has been let go.
 */
extern int pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
                    int (*tick)(pctx_t *, pid_t, id_t, void *));
/* Lets the process go (it runs on) and frees the handle. */
extern void pctx_release(pctx_t *pctx);
/* [async-signal-safe] Makes pctx_run return 0 as soon as it can. */
extern void pctx_terminate(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* LIBPCTX_H */
