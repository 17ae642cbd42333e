// SPDX-License-Identifier: MIT
/*
 * cpc-demo: counts events around a bundled workload with libcpc, the way
 * cpc(3CPC) Example 1 does, and prints one line per iteration.
 *
 *   cpc-demo [ITERATIONS]
 *
 * EVENT0 and EVENT1 choose the events.  By default it counts instructions
 * and cache misses where the processor has hardware counters, and
 * task-clock and page-faults where it has none (it says which).
 */
#define _GNU_SOURCE
#include <libcpc.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("cpc-demo: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* The measured computation: fresh pages to fault in, then a pointer chase. */
static unsigned long workload(size_t pages) {
    size_t len = pages * 4096;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("mmap: %s", strerror(errno));
    for (size_t i = 0; i < len; i += 4096)
        p[i] = (unsigned char)i;
    unsigned long sum = 0, idx = 0;
    for (size_t i = 0; i < 2000000; i++) {
        idx = (idx * 2862933555777941757ul + 3037000493ul) % len;
        sum += p[idx];
    }
    munmap(p, len);
    return sum;
}

static int has_event(cpc_t *cpc, const char *name) {
    cpc_set_t *s = cpc_set_create(cpc);
    int ok = s != NULL && cpc_set_add_request(cpc, s, name, 0, CPC_COUNT_USER, 0, NULL) >= 0;
    if (s != NULL)
        cpc_set_destroy(cpc, s);
    return ok;
}

static void silent(const char *fn, int subcode, const char *fmt, va_list ap) {
    (void)fn;
    (void)subcode;
    (void)fmt;
    (void)ap;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 10;
    if (iters <= 0)
        die("ITERATIONS must be a positive number, not '%s'", argv[1]);

    cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
    if (cpc == NULL)
        die("performance counters unavailable: %s", strerror(errno));
    printf("processor: %s\n", cpc_cciname(cpc));

    const char *ev0 = getenv("EVENT0"), *ev1 = getenv("EVENT1");
    if (ev0 == NULL || ev1 == NULL) {
        cpc_seterrhndlr(cpc, silent);
        int hw = has_event(cpc, "instructions") && has_event(cpc, "cache-misses");
        cpc_seterrhndlr(cpc, NULL);
        if (ev0 == NULL)
            ev0 = hw ? "instructions" : "task-clock";
        if (ev1 == NULL)
            ev1 = hw ? "cache-misses" : "page-faults";
        if (!hw)
            printf("no hardware performance counters here: counting "
                   "software events\n");
    }

    cpc_set_t *set = cpc_set_create(cpc);
    if (set == NULL)
        die("could not create set: %s", strerror(errno));
    int i0 = cpc_set_add_request(cpc, set, ev0, 0, CPC_COUNT_USER, 0, NULL);
    if (i0 == -1)
        die("could not add request %s: %s", ev0, strerror(errno));
    int i1 = cpc_set_add_request(cpc, set, ev1, 0, CPC_COUNT_USER, 0, NULL);
    if (i1 == -1)
        die("could not add request %s: %s", ev1, strerror(errno));
    cpc_buf_t *before = cpc_buf_create(cpc, set);
    cpc_buf_t *after = cpc_buf_create(cpc, set);
    cpc_buf_t *diff = cpc_buf_create(cpc, set);
    if (before == NULL || after == NULL || diff == NULL)
        die("could not create buffers: %s", strerror(errno));
    if (cpc_bind_curlwp(cpc, set, 0) == -1)
        die("cannot bind: %s", strerror(errno));

    printf("%4s %16s %16s %14s\n", "iter", ev0, ev1, CPC_TICKREG_NAME);
    unsigned long sink = 0;
    for (int iter = 1; iter <= iters; iter++) {
        if (cpc_set_sample(cpc, set, before) == -1)
            die("cannot sample: %s", strerror(errno));
        sink += workload(256 * (size_t)iter);
        if (cpc_set_sample(cpc, set, after) == -1)
            die("cannot sample: %s", strerror(errno));
        cpc_buf_sub(cpc, diff, after, before);
        uint64_t v0, v1;
        cpc_buf_get(cpc, diff, i0, &v0);
        cpc_buf_get(cpc, diff, i1, &v1);
        printf("%4d %16" PRIu64 " %16" PRIu64 " %14" PRIu64 "\n", iter, v0, v1,
               cpc_buf_tick(cpc, diff));
    }
    cpc_unbind(cpc, set);
    cpc_close(cpc);
    return sink == 42 ? 2 : 0;
}
