// SPDX-License-Identifier: MIT
/*
 * fixed_work: a fixed amount of work (a 40-deep recursion, a pointer
 * chase, a compute loop, and a second thread), timed by itself, so that a
 * profiler's slowdown of the program can be measured: it prints
 *     wall SECONDS
 * the wall-clock time of the work alone (start-up and the profiler's own
 * start and finish excluded), and
 *     cpu SECONDS
 * the CPU time the process (every thread of it, a profiler's own threads
 * in it included) spent over the same interval.
 *
 *     usage: fixed_work [SCALE [EXTRA_PERCENT]]
 *
 * EXTRA_PERCENT > 0 adds a function, fw_injected, that spins on the CPU
 * clock for that percentage of the CPU time each round of the work took
 * (both threads): the run grows by EXTRA_PERCENT % of itself, all of it in
 * one function, as a regression would (tests/bench/bench_gate.py).
 *
 * With FW_GO_FILE set in the environment it prints "ready" and waits
 * until that file exists before the timed work starts: a profiler can
 * attach to it first (tests/bench/bench_attach.py).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;
static uint32_t *next_of;
enum { kLines = 1 << 20 };

__attribute__((noinline)) uint64_t fw_leaf(int n) {
    uint64_t x = 7;
    for (int i = 0; i < n; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

__attribute__((noinline)) uint64_t fw_recurse(int depth) {
    return depth == 0 ? fw_leaf(20000) : fw_recurse(depth - 1) + 1;
}

__attribute__((noinline)) uint64_t fw_chase(long steps) {
    uint32_t p = 0;
    while (steps-- > 0)
        p = next_of[p * 16];
    return p;
}

__attribute__((noinline)) double fw_compute(long n) {
    double a = 1.0, b = 0.5;
    for (long i = 0; i < n; i++) {
        a = a * 0.999999 + b;
        b = b * 1.000001 - a * 1e-9;
    }
    return a + b;
}

static long g_scale = 1;
static double g_extra_percent = 0;

static double clock_s(clockid_t clock);

__attribute__((noinline)) uint64_t fw_injected(double seconds) {
    uint64_t x = 0;
    double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + seconds;
    // The clock is read every ~50 us: reading a thread's CPU clock is a
    // system call, which a user-mode sampler would not see.
    while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static void *second(void *arg) {
    (void)arg;
    for (long i = 0; i < 400 * g_scale; i++)
        sink += fw_leaf(100000);
    return NULL;
}

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc > 1)
        g_scale = atol(argv[1]);
    if (argc > 2)
        g_extra_percent = atof(argv[2]);
    next_of = malloc(sizeof *next_of * 16 * kLines);
    for (uint32_t i = 0; i < kLines; i++)
        next_of[i * 16] = (uint32_t)((i * 2654435761u + 12345u) % kLines);
    const char *go = getenv("FW_GO_FILE");
    if (go != NULL) {
        printf("ready\n");
        fflush(stdout);
        while (access(go, F_OK) != 0)
            usleep(2000);
    }
    double t0 = clock_s(CLOCK_MONOTONIC);
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    pthread_t t;
    pthread_create(&t, NULL, second, NULL);
    for (long r = 0; r < 20 * g_scale; r++) {
        double round0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        for (int i = 0; i < 10; i++)
            sink += fw_recurse(40);
        sink += fw_chase(300000);
        sink += (uint64_t)fw_compute(3000000);
        if (g_extra_percent > 0)
            sink +=
                fw_injected((clock_s(CLOCK_PROCESS_CPUTIME_ID) - round0) * g_extra_percent / 100);
    }
    pthread_join(t, NULL);
    printf("wall %.6f\n", clock_s(CLOCK_MONOTONIC) - t0);
    printf("cpu %.6f\n", clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0);
    return 0;
}
