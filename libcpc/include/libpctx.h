/*
 * libpctx.h: process context library (illumos libpctx), on Linux over
 * ptrace(2).  A controlling process creates or captures a target process,
 * is called back at its process and thread events, and can bind counters
 * to its threads with cpc_bind_pctx(3CPC).
 */
#ifndef LIBPCTX_H
#define LIBPCTX_H

#include <stdarg.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __pctx pctx_t;

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

typedef int pctx_sysc_execfn_t(pctx_t *, pid_t, id_t, char *, void *);
typedef void pctx_sysc_forkfn_t(pctx_t *, pid_t, pid_t, id_t, void *);
typedef void pctx_sysc_exitfn_t(pctx_t *, pid_t, id_t, int, void *);
typedef int pctx_sysc_lwp_createfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_init_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_fini_lwpfn_t(pctx_t *, pid_t, id_t, void *);
typedef int pctx_sysc_lwp_exitfn_t(pctx_t *, pid_t, id_t, void *);

extern pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
    int verbose, pctx_errfn_t *errfn);
extern pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn);
extern int pctx_set_events(pctx_t *pctx, ...);
extern int pctx_run(pctx_t *pctx, unsigned int msec, unsigned int nsamples,
    int (*tick)(pctx_t *, pid_t, id_t, void *));
extern void pctx_release(pctx_t *pctx);
extern void pctx_terminate(pctx_t *pctx);

#ifdef __cplusplus
}
#endif

#endif /* LIBPCTX_H */
