/*
 * pctx_spin OUTFILE ITERATIONS: computes for ITERATIONS rounds of a fixed
 * loop on one thread and writes the wall time it took, in microseconds,
 * to OUTFILE; exits 0.  Under control with ticks the time must stay about
 * what it is alone: ticks do not stop the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    long n = atol(argv[2]);
    long long t0 = now_us();
    volatile unsigned long x = 0;
    for (long i = 0; i < n; ++i)
        for (int k = 0; k < 1000; ++k)
            x = x * 31 + k;
    long long t1 = now_us();
    FILE *f = fopen(argv[1], "w");
    if (f == NULL)
        return 2;
    fprintf(f, "%lld\n", t1 - t0);
    fclose(f);
    return 0;
}
