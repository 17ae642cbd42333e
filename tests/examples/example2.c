// SPDX-License-Identifier: MIT
/*
 * cpc_bind_curlwp(3CPC) Example 2, as printed, made whole: the handler and
 * the setup code of the page in one program on Example 1's frame.  Evident
 * fixes: include lines; error() defined; _lwp_self() is gettid(); the
 * Solaris register names PC/SP are Linux's REG_RIP/REG_RSP; the global
 * "index" clashes with index(3) and is renamed by a macro; the page's
 * "(cpc_request_preset(cpc, ind1, val1) != 0)" lacks its "if" and names an
 * undefined request, so it re-arms this request at PRESET; "event" comes
 * from EVENT (default page-faults).  The computation faults in 500 pages
 * per iteration, so with PRESET 1000 short of overflow the handler runs
 * about ten times.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <libcpc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define _lwp_self() gettid()
/* <strings.h> declares index(3); the page's global of that name is renamed. */
#define index req_index
#define PC REG_RIP
#define SP REG_RSP

static void error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

cpc_t *cpc;
cpc_set_t *set;
cpc_buf_t *buf;
int index;

#define PRESET (UINT64_MAX - 999ull)

void emt_handler(int sig, siginfo_t *sip, void *arg) {
    ucontext_t *uap = arg;
    uint64_t val;

    if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
        psignal(sig, "example");
        psiginfo(sip, "example");
        return;
    }

    (void)printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n", _lwp_self(),
                 (void *)sip->si_addr, (void *)uap->uc_mcontext.gregs[PC],
                 (void *)uap->uc_mcontext.gregs[SP]);

    if (cpc_set_sample(cpc, set, buf) != 0)
        error("cannot sample: %s", strerror(errno));

    cpc_buf_get(cpc, buf, index, &val);

    (void)printf("0x%" PRIx64 "\n", val);
    (void)fflush(stdout);

    /*
     * Update a request's preset and restart the counters. Counters which
     * have not been preset with cpc_request_preset() will resume counting
     * from their current value.
     */
    if (cpc_request_preset(cpc, index, PRESET) != 0)
        error("cannot set preset for request %d: %s", index, strerror(errno));
    if (cpc_set_restart(cpc, set) != 0)
        error("cannot restart lwp%d: %s", _lwp_self(), strerror(errno));
}

static void computation(void) {
    char *p = mmap(NULL, 500 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int i = 0; i < 500; i++)
        p[i * 4096] = 1;
    munmap(p, 500 * 4096);
}

int main(void) {
    struct sigaction act;
    char *event;
    int iter;

    if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
        error("perf counters unavailable: %s", strerror(errno));
    if ((set = cpc_set_create(cpc)) == NULL)
        error("could not create set: %s", strerror(errno));
    if ((event = getenv("EVENT")) == NULL)
        event = "page-faults";

    act.sa_sigaction = emt_handler;
    bzero(&act.sa_mask, sizeof(act.sa_mask));
    act.sa_flags = SA_RESTART | SA_SIGINFO;
    if (sigaction(SIGEMT, &act, NULL) == -1)
        error("sigaction: %s", strerror(errno));

    if ((index = cpc_set_add_request(cpc, set, event, PRESET, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
                                     0, NULL)) != 0)
        error("cannot add request to set: %s", strerror(errno));

    if ((buf = cpc_buf_create(cpc, set)) == NULL)
        error("cannot create buffer: %s", strerror(errno));

    if (cpc_bind_curlwp(cpc, set, 0) == -1)
        error("cannot bind lwp%d: %s", _lwp_self(), strerror(errno));

    for (iter = 1; iter <= 20; iter++) {
        /* ==> Computation to be measured goes here <== */
        computation();
    }

    cpc_unbind(cpc, set); /* done */
    return (0);
}
