// SPDX-License-Identifier: MIT
/*
 * A wave of many threads alive at once: each does a little work, then
 * waits at a barrier until all have started, so that every one of them
 * lives at the same time; then they all end.
 *
 * usage: threadwave [--threads N] [--work W]
 *   N threads (default 2000), each W rounds (default 20, ~2 ms of CPU)
 *   before and after the barrier.  Raises its descriptor limit to the
 *   hard limit first (each sampled thread holds the profiler's counters).
 *   Prints "threads N" and "sum S".
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <string.h>
#include <sys/resource.h>

static int g_work = 20;
static pthread_barrier_t g_barrier;
static uint64_t *g_sums;

static void *thread_main(void *arg) {
    int k = (int)(intptr_t)arg;
    uint64_t x = (uint64_t)k;
    for (int i = 0; i < g_work; ++i)
        x = spin_chunk(x);
    pthread_barrier_wait(&g_barrier);
    for (int i = 0; i < g_work; ++i)
        x = spin_chunk(x);
    g_sums[k] = x;
    return NULL;
}

int main(int argc, char **argv) {
    int n = 2000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0)
            n = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--work") == 0)
            g_work = atoi(argv[i + 1]);
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    g_sums = calloc((size_t)n, sizeof *g_sums);
    pthread_t *t = calloc((size_t)n, sizeof *t);
    if (g_sums == NULL || t == NULL)
        die("calloc");
    pthread_barrier_init(&g_barrier, NULL, (unsigned)n);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int k = 0; k < n; ++k)
        if (pthread_create(&t[k], &attr, thread_main, (void *)(intptr_t)k) != 0)
            die("pthread_create");
    uint64_t sum = 0;
    for (int k = 0; k < n; ++k) {
        pthread_join(t[k], NULL);
        sum += g_sums[k];
    }
    printf("threads %d\nsum %llu\n", n, (unsigned long long)sum);
    return 0;
}
