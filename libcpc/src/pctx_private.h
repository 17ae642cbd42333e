// SPDX-License-Identifier: MIT
// The private interface libpctx offers libcpc (illumos: __pctx_cpc and
// __pctx_cpc_register_callback).  Exported from libpctx.so.1 under the
// SUNWprivate_1.1 version; not for applications.
//
// libcpc depends on libpctx, never the reverse: libpctx only knows that
// someone wants to hear when a thread's counters may go.
#pragma once

#include "libpctx.h"

#ifdef __cplusplus
extern "C" {
#endif

// Called when thread lwpid of pctx's process is finished: after its
// fini_lwp and lwp_exit callbacks returned (or, without them, when it
// ended or the process exec'd).  lwpid 0: the handle is being released;
// nothing of it may be used after the call returns.
typedef void __pctx_lwp_gone_fn(void *cookie, pctx_t *pctx, pid_t lwpid);

// Adds (fn, cookie) to pctx's observers (once): 0, or -1 with errno EINVAL
// for a bad handle.
int __pctx_observe(pctx_t *pctx, __pctx_lwp_gone_fn *fn, void *cookie);
// Removes (fn, cookie); nothing if absent.
void __pctx_unobserve(pctx_t *pctx, __pctx_lwp_gone_fn *fn, void *cookie);

// The thread whose callback (init_lwp, fini_lwp, tick, lwp_create,
// lwp_exit, exec, exit, fork) is running now, or 0.
pid_t __pctx_current_lwp(const pctx_t *pctx);

// Whether lwpid is a thread of the controlled process that has not ended:
// 0, ESRCH, or EINVAL for a bad handle.
int __pctx_lwp_check(const pctx_t *pctx, pid_t lwpid);

// The controlled process, or 0 for a bad handle.
pid_t __pctx_pid(const pctx_t *pctx);

#ifdef __cplusplus
}
#endif
