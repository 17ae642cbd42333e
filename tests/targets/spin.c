// SPDX-License-Identifier: MIT
/*
 * pctx_spin OUTFILE ITERATIONS: computes for ITERATIONS rounds of a fixed
 * loop on one thread and writes the wall time it took and the part of it
 * spent waiting for a CPU (runnable, behind other programs:
 * /proc/self/schedstat), in microseconds, to OUTFILE as "WALL WAIT";
 * exits 0.  Under control with ticks, WALL - WAIT must stay about what it
 * is alone: ticks do not stop the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Microseconds this thread has waited on a run queue; 0 if unknown. */
static long long runqueue_wait_us(void) {
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%llu %llu", &run, &wait) != 2)
        wait = 0;
    fclose(f);
    return (long long)(wait / 1000);
}

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    long n = atol(argv[2]);
    long long w0 = runqueue_wait_us();
    long long t0 = now_us();
    volatile unsigned long x = 0;
    for (long i = 0; i < n; ++i)
        for (int k = 0; k < 1000; ++k)
            x = x * 31 + k;
    long long t1 = now_us();
    long long w1 = runqueue_wait_us();
    FILE *f = fopen(argv[1], "w");
    if (f == NULL)
        return 2;
    fprintf(f, "%lld %lld\n", t1 - t0, w1 - w0);
    fclose(f);
    return 0;
}
