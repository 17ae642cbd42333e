// SPDX-License-Identifier: MIT
/*
 * workload: CPU time split between known functions at known depths, each
 * phase timed by the program itself, so that a profile can be checked
 * against the truth.
 *
 *   main thread, in rounds:  wl_phase_recursion -> wl_recurse x 40 -> wl_leaf
 *                            wl_phase_chase     -> wl_chase  (pointer chase over
 *                                                  64 MB, one cache miss a step)
 *                            wl_phase_compute   -> wl_compute (floating point)
 *   second thread:           wl_thread_main -> wl_thread_work
 *   before the rounds:       wl_setup_chase (builds the chase's cycle)
 *
 * Every phase measures its own CPU time (CLOCK_THREAD_CPUTIME_ID around the
 * call) and at the end the program prints one line per phase function
 *     share FUNC SECONDS
 * plus "depth wl_recurse 40" and "setup wl_setup_chase SECONDS".  The test
 * expects each FUNC's share of the samples (samples with FUNC on the stack)
 * to match its share of the printed seconds within the binomial bounds of
 * that many samples,
 * the samples under wl_leaf to carry exactly 40 wl_recurse frames, and
 * (dwarf mode) complete stacks back to main or wl_thread_main.
 *
 * The phases run in user mode only, which is what the sampler counts
 * (CPC_COUNT_USER).  The setup is mostly page faults, kernel time that
 * CLOCK_THREAD_CPUTIME_ID includes and the sampler does not see, so it is
 * printed but is no share.
 *
 * Built twice, -O2 -g, with and without frame pointers.  Functions are
 * noinline/noclone with extern names so that they appear in the symbol
 * table as written.
 *
 * usage: workload [--seconds S] [--split R,C,K] [--thread-seconds T]
 *   S: main-thread CPU seconds (default 2), split between recursion, chase
 *   and compute in percent (default 30,30,40); T: the second thread's CPU
 *   seconds (default S/2).
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <string.h>

enum { kDepth = 40, kRounds = 5 };

struct line { /* one cache line per chase step */
    uint32_t next;
    uint32_t pad[15];
};

struct line *wl_lines;
size_t wl_nlines = (64u << 20) / sizeof(struct line);
volatile uint64_t wl_sink;

NOINLINE void wl_setup_chase(void) {
    wl_lines = malloc(wl_nlines * sizeof *wl_lines);
    uint32_t *order = malloc(wl_nlines * sizeof *order);
    if (wl_lines == NULL || order == NULL)
        die("malloc");
    for (size_t i = 0; i < wl_nlines; ++i)
        order[i] = (uint32_t)i;
    uint64_t r = 88172645463325252ull;
    for (size_t i = wl_nlines - 1; i > 0; --i) { /* Fisher-Yates */
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        size_t j = r % (i + 1);
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < wl_nlines; ++i) /* one cycle through every line */
        wl_lines[order[i]].next = order[(i + 1) % wl_nlines];
    free(order);
}

NOINLINE uint64_t wl_leaf(uint64_t x) {
    for (int i = 0; i < 20000; ++i)
        x = (x ^ (x >> 13)) * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

/* depth frames of wl_recurse above wl_leaf.  The store after the call
 * keeps the compiler from turning the recursion into a loop. */
NOINLINE uint64_t wl_recurse(int depth, uint64_t x) {
    uint64_t r = depth <= 1 ? wl_leaf(x) : wl_recurse(depth - 1, x + (uint64_t)depth);
    wl_sink = wl_sink + r;
    return r ^ (uint64_t)depth;
}

NOINLINE uint32_t wl_chase(uint32_t at, long steps) {
    while (steps-- > 0)
        at = wl_lines[at].next;
    return at;
}

NOINLINE double wl_compute(long n) {
    double a = 1.0, b = 0.5, s = 0.0;
    for (long i = 0; i < n; ++i) {
        a = a * 1.0000001 + b;
        b = b * 0.9999999 - 1e-9 * a;
        s += a / (b + 3.0);
    }
    return s;
}

NOINLINE void wl_phase_recursion(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 1;
    while (thread_cpu_seconds() < end)
        for (int i = 0; i < 16; ++i)
            x = wl_recurse(kDepth, x);
    wl_sink = wl_sink + x;
}

NOINLINE void wl_phase_chase(double seconds) {
    static uint32_t at;
    double end = thread_cpu_seconds() + seconds;
    while (thread_cpu_seconds() < end)
        at = wl_chase(at, 10000);
    wl_sink = wl_sink + at;
}

NOINLINE void wl_phase_compute(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    double s = 0;
    while (thread_cpu_seconds() < end)
        s += wl_compute(200000);
    wl_sink = wl_sink + (uint64_t)s;
}

NOINLINE uint64_t wl_thread_work(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 7;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

static double g_thread_seconds, g_thread_measured;

NOINLINE void *wl_thread_main(void *arg) {
    (void)arg;
    double t0 = thread_cpu_seconds();
    wl_sink = wl_sink + wl_thread_work(g_thread_seconds);
    g_thread_measured = thread_cpu_seconds() - t0;
    return NULL;
}

typedef void (*phase_fn)(double);

int main(int argc, char **argv) {
    double seconds = 2.0, split[3] = {30, 30, 40};
    g_thread_seconds = -1;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--thread-seconds") == 0 && i + 1 < argc)
            g_thread_seconds = atof(argv[++i]);
        else if (strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
            if (sscanf(argv[++i], "%lf,%lf,%lf", &split[0], &split[1], &split[2]) != 3) {
                fprintf(stderr, "workload: --split R,C,K\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: workload [--seconds S] [--split R,C,K] [--thread-seconds T]\n");
            return 2;
        }
    }
    if (g_thread_seconds < 0)
        g_thread_seconds = seconds / 2;
    double total = split[0] + split[1] + split[2];

    double t0 = thread_cpu_seconds();
    wl_setup_chase();
    double setup = thread_cpu_seconds() - t0;

    pthread_t th;
    if (pthread_create(&th, NULL, wl_thread_main, NULL) != 0)
        die("pthread_create");

    static const char *const names[3] = {"wl_phase_recursion", "wl_phase_chase",
                                         "wl_phase_compute"};
    const phase_fn phases[3] = {wl_phase_recursion, wl_phase_chase, wl_phase_compute};
    double measured[3] = {0, 0, 0};
    for (int round = 0; round < kRounds; ++round)
        for (int p = 0; p < 3; ++p) {
            double start = thread_cpu_seconds();
            phases[p](seconds * split[p] / total / kRounds);
            measured[p] += thread_cpu_seconds() - start;
        }
    pthread_join(th, NULL);

    printf("setup wl_setup_chase %.6f\n", setup);
    for (int p = 0; p < 3; ++p)
        printf("share %s %.6f\n", names[p], measured[p]);
    printf("share wl_thread_work %.6f\n", g_thread_measured);
    printf("depth wl_recurse %d\n", kDepth);
    return 0;
}
