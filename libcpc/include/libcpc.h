// SPDX-License-Identifier: MIT
/*
 * libcpc.h: the illumos libcpc(3LIB) hardware performance counter
 * interface, implemented on Linux over perf_event_open(2).
 *
 * A program written to the illumos manual pages compiles against this
 * header and runs.  Where Linux forces a difference, libcpc(3CPC) in this
 * project's man pages says so.
 *
 * Signal safety: the functions marked [async-signal-safe] allocate nothing,
 * take no lock and may be called from the SIGEMT overflow handler.  All
 * other functions must not be called from a signal handler.
 */
#ifndef LIBCPC_H
#define LIBCPC_H

#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

/* libpctx's handle (<libpctx.h>); either header may come first. */
#ifndef _PCTX_T_DECLARED
#define _PCTX_T_DECLARED
typedef struct __pctx pctx_t;
#endif

typedef unsigned int uint_t;
/* Nanoseconds of CLOCK_MONOTONIC (illumos gethrtime(3C) base). */
typedef long long hrtime_t;
typedef int processorid_t;

typedef struct {
    char *ca_name;
    uint64_t ca_val;
} cpc_attr_t;

#define CPC_VER_CURRENT 2

/* Bind flags. */
#define CPC_BIND_LWP_INHERIT 0x1

/* Request flags. */
#define CPC_OVF_NOTIFY_EMT 0x1
#define CPC_COUNT_USER 0x2
#define CPC_COUNT_SYSTEM 0x4
#define CPC_COUNT_HV 0x8

/* Capabilities returned by cpc_caps(). */
#define CPC_CAP_OVERFLOW_INTERRUPT 0x1
#define CPC_CAP_OVERFLOW_PRECISE 0x2

#define CPC_MAX_EVENT_LEN 512
#define CPC_MAX_ATTR_LEN 32
#define CPC_MAX_IMPL_NAME 512
#define CPC_MAX_CPUREF 1024
#define CPC_TICKREG_NAME "tsc"

/* Error subcodes passed to the cpc_errhndlr_t handler. */
#define CPC_INVALID_EVENT 1
#define CPC_INVALID_PICNUM 2
#define CPC_INVALID_ATTRIBUTE 3
#define CPC_ATTRIBUTE_OUT_OF_RANGE 4
#define CPC_RESOURCE_UNAVAIL 5
#define CPC_PIC_NOT_CAPABLE 6
#define CPC_REQ_INVALID_FLAGS 7
#define CPC_CONFLICTING_REQS 8
#define CPC_ATTR_REQUIRES_PRIVILEGE 9
#define CPC_PBIND_FAILED 10
#define CPC_HV_NO_ACCESS 11

/*
 * Linux has no SIGEMT on x86 or arm64.  libcpc delivers counter overflows
 * as a real-time signal, SIGRTMIN+5 by default; the environment variable
 * CPC_SIGEMT (a number, or RTMIN+n) chooses another before the first use.
 * SIGEMT is therefore not a compile-time constant: use it in sigaction()
 * and comparisons, not in case labels.  The overflow signal carries
 * si_code == EMT_CPCOVF and si_addr == the interrupted PC.
 */
#ifndef SIGEMT
extern int __cpc_sigemt(void);
#define SIGEMT (__cpc_sigemt())
#endif
#ifndef EMT_CPCOVF
#define EMT_CPCOVF 1
#endif

typedef void(cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt, va_list ap);

/* Handle. */
extern cpc_t *cpc_open(int ver);
extern int cpc_close(cpc_t *cpc);
extern uint_t cpc_npic(cpc_t *cpc);
extern uint_t cpc_caps(cpc_t *cpc);
extern const char *cpc_cciname(cpc_t *cpc);
extern const char *cpc_cpuref(cpc_t *cpc);
/*
 * Linux extension.  Which backend serves cpc: "perf_event"
 * (perf_event_open(2)) or "posix-timer" (where perf_event_open is refused:
 * the thread's CPU clock, POSIX CPU-time timers and getrusage(2); see
 * libcpc(3CPC)).  For "posix-timer", *reason is why ("perf_event_open
 * refused (EPERM: ...)" or "CPC_BACKEND=timer") and *remedy what hardware
 * events would need ("CAP_PERFMON ..."); both "" for "perf_event".  Either
 * pointer may be null.  NULL with errno EINVAL for a bad handle.
 */
extern const char *cpc_backend(cpc_t *cpc, const char **reason, const char **remedy);
extern int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

/* Events and attributes this machine can count. */
extern void cpc_walk_events_all(cpc_t *cpc, void *arg,
                                void (*action)(void *arg, const char *event));
extern void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
                                        void (*action)(void *arg, const char *event));
extern void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
                                void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
                                        void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_attrs(cpc_t *cpc, void *arg, void (*action)(void *arg, const char *attr));

/* Sets and requests. */
extern cpc_set_t *cpc_set_create(cpc_t *cpc);
extern int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event, uint64_t preset,
                               uint_t flags, uint_t nattrs, const cpc_attr_t *attrs);
extern int cpc_set_request_preset(cpc_t *cpc, cpc_set_t *set, int index, uint64_t preset);
extern void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
                              void (*action)(void *arg, int index, const char *event,
                                             uint64_t preset, uint_t flags, int nattrs,
                                             const cpc_attr_t *attrs));

/* Binding. */
extern int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
extern int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags);
/*
 * Binds set to thread id (a tid) of the process pctx controls (libpctx);
 * flags must be 0.  One set may be bound to several threads of the
 * process; cpc_set_sample then reads the thread whose libpctx callback is
 * running, else the thread bound last.  A set bound this way is used by
 * the thread that runs pctx_run; cpc_set_sample on it is not for signal
 * handlers.  See cpc_bind_pctx(3CPC).
 */
extern int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, id_t id, cpc_set_t *set, uint_t flags);
extern int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
/* [async-signal-safe] */
extern int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
/* [async-signal-safe] */
extern int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
/*
 * Linux extension.  [async-signal-safe; from the SIGEMT handler of the
 * thread that bound set with cpc_bind_curlwp]  Overflows of set that came
 * before the one this SIGEMT reports and whose signals merged into it
 * (the kernel raises one signal for overflows that arrive before it is
 * delivered: short periods, a busy machine).  Returns their number and
 * stores the interrupted PCs of up to max of them, oldest first, in pcs,
 * *npcs of them (0 where the kernel's records are not available); -1 with
 * errno EINVAL when set is not bound to the calling thread.  See
 * cpc_bind_curlwp(3CPC).
 */
extern int64_t cpc_set_merged_overflows(cpc_t *cpc, cpc_set_t *set, uint64_t *pcs, int max,
                                        int *npcs);
/*
 * Linux extension.  [async-signal-safe; from the SIGEMT handler of the
 * thread that bound set with cpc_bind_curlwp]  The kernel's part of the
 * stack where the overflow this SIGEMT reports was taken in the kernel
 * (a first request with CPC_COUNT_SYSTEM): up to max PCs, innermost first,
 * stored in pcs; returns how many, 0 for an overflow in user mode or where
 * the kernel kept no record (the signal's ucontext holds the user's part:
 * where the thread returns to); -1 with errno EINVAL when set is not bound
 * to the calling thread.  See cpc_bind_curlwp(3CPC).
 */
extern int cpc_set_kernel_frames(cpc_t *cpc, cpc_set_t *set, uint64_t *pcs, int max);

/* Buffers. */
extern cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
extern int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);
/* [async-signal-safe] for a set bound by cpc_bind_curlwp or cpc_bind_cpu. */
extern int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
/* [async-signal-safe] the accessors below only touch the buffer. */
extern int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
extern int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
extern hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
extern uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);
extern void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
extern void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
extern void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
extern void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);

/* Activation of the calling thread's bound set. */
extern int cpc_enable(cpc_t *cpc);
extern int cpc_disable(cpc_t *cpc);

/*
 * Linux extension: sample rings.  The kernel samples the overflows of a
 * set's first request into rings that the caller reads: for every thread
 * of another process, present and future (attach, without stopping it,
 * tracing it or sending it a signal), or for every thread on some CPUs.
 * illumos has no counterpart: there a tool controls another process
 * through libpctx (cpc_bind_pctx, which stops it at each event it asks
 * for) and sees kernel stacks through DTrace's cpc provider.  perf_event
 * backend only.  See cpc_ring_open(3CPC).
 */
typedef struct __cpc_ring cpc_ring_t;

/* What each sample holds besides its PC, thread, CPU and time. */
#define CPC_RING_CALLCHAIN                                                                         \
    0x1 /* the kernel's part of the stack, and the user's by frame pointers */
#define CPC_RING_USER_STACK 0x2 /* the user registers and a copy of the top of the user stack */
#define CPC_RING_KERNEL_CALLCHAIN                                                                  \
    0x4 /* the kernel's part of the stack only (the user's left to CPC_RING_USER_STACK) */
/* Not in samples: records of the threads' switches off and onto a CPU. */
#define CPC_RING_SWITCHES 0x8
/* A process's rings as large as whole CPUs' (8 MiB each, within the budget). */
#define CPC_RING_LARGE 0x10

typedef enum {
    CPC_RING_SAMPLE = 1, /* an overflow of the first request */
    CPC_RING_MMAP,       /* a file or anonymous memory mapped executable (or not) */
    CPC_RING_COMM,       /* a thread named, or a process that exec'd */
    CPC_RING_FORK,       /* a process or thread created */
    CPC_RING_EXIT,       /* a process or thread ended */
    CPC_RING_LOST,       /* records the kernel could not write (the ring was full) */
    CPC_RING_THROTTLE,   /* the kernel held sampling back (perf_event_max_sample_rate) */
    CPC_RING_SWITCH      /* with CPC_RING_SWITCHES: a thread left or got a CPU */
} cpc_ring_kind_t;

typedef struct {
    cpc_ring_kind_t kind;
    pid_t pid;     /* process (for FORK and EXIT: the new or ended one) */
    pid_t tid;     /* thread */
    int cpu;       /* -1 where the kernel does not say */
    hrtime_t time; /* CLOCK_MONOTONIC, ns */
    /* CPC_RING_SAMPLE */
    uint64_t pc;
    int in_kernel;              /* pc is the kernel's */
    uint64_t period;            /* events the sample stands for */
    uint32_t nkernel_pcs;       /* with CPC_RING_CALLCHAIN: the kernel's frames, */
    const uint64_t *kernel_pcs; /* innermost first (pc included) */
    uint32_t nuser_pcs;         /* the user's by frame pointers, innermost first */
    const uint64_t *user_pcs;
    uint64_t regs_mask;   /* with CPC_RING_USER_STACK: the registers kept (perf_regs bits) */
    const uint64_t *regs; /* their values, lowest bit first; NULL in a kernel thread */
    uint64_t stack_size;  /* bytes copied from the user stack pointer up */
    const void *stack;
    uint32_t nvalues;       /* sets of several requests: each request's count so far */
    const uint64_t *values; /* in this thread, in request order */
    /* CPC_RING_MMAP */
    uint64_t addr, len, pgoff; /* start, length, offset in the file */
    uint32_t prot;             /* PROT_* */
    const char *path;          /* the file, "//anon", "[vdso]", ... */
    /* CPC_RING_COMM */
    const char *comm;
    int exec; /* the name is a new program's */
    /* CPC_RING_FORK, CPC_RING_EXIT */
    pid_t ppid, ptid; /* parent process and thread */
    /* CPC_RING_LOST */
    uint64_t lost;
    /* CPC_RING_SWITCH */
    int switch_out; /* 1: the thread left the CPU at time; 0: it got one */
    int preempted;  /* left still runnable (taken off, not blocked); Linux 4.17 */
} cpc_ring_record_t;

/*
 * Opens rings sampling set: pid > 0, every thread of that process, those
 * it creates later and the processes it forks, on every CPU (ncpus 0) or
 * on cpus[0..ncpus-1]; pid -1, every thread on those CPUs.  The first
 * request must have CPC_OVF_NOTIFY_EMT: its preset sets the period
 * (UINT64_MAX - preset + 1 events); CPC_COUNT_SYSTEM makes the kernel's
 * part of the stack visible.  flags: CPC_RING_*; stack_bytes: how much of
 * the user stack each sample copies (CPC_RING_USER_STACK; rounded to 8,
 * at most 65528).  Counting starts at once.  NULL with errno: ESRCH no
 * such process, EACCES not allowed (ptrace access to pid; CAP_PERFMON or
 * perf_event_paranoid for CPUs), ENOTSUP not on this backend (or a set of
 * several requests on a pid before Linux 6.12), EINVAL bad arguments.
 */
extern cpc_ring_t *cpc_ring_open(cpc_t *cpc, cpc_set_t *set, pid_t pid, const processorid_t *cpus,
                                 int ncpus, uint_t flags, uint_t stack_bytes);
/*
 * Waits up to timeout_ms (-1: no bound) for records: 1 when some are
 * ready, 0 on timeout, -1 with errno (EINTR).  The threads' ends come as
 * CPC_RING_EXIT records.
 */
extern int cpc_ring_wait(cpc_ring_t *ring, int timeout_ms);
/*
 * Calls fn for each record ready, oldest first per CPU; the record and
 * what it points to live until fn returns.  The number of records, or
 * -1 with errno EINVAL.
 */
extern int64_t cpc_ring_read(cpc_ring_t *ring, void *arg,
                             void (*fn)(void *arg, const cpc_ring_record_t *rec));
/* Stops sampling, releases everything; the threads run on untouched. */
extern int cpc_ring_close(cpc_ring_t *ring);

#ifdef __cplusplus
}
#endif

#endif /* LIBCPC_H */
