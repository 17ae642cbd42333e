// SPDX-License-Identifier: MIT
/*
 * threads: creates and joins COUNT threads (default 200), BATCH at a time
 * (default 10), each spinning SPIN_MS of its own CPU time (default 5) in
 * th_spin() under its start routine th_worker().
 *
 * Each thread prints "thread TID" when it has finished spinning; at the end
 * the program prints "joined COUNT" and exits 0.  The test (sampling at
 * 10 kHz) expects exit 0, every printed thread in the profile with samples
 * under th_worker, and balanced sample accounting.
 *
 * usage: threads [COUNT [BATCH [SPIN_MS]]]
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static double g_spin_seconds;
static pthread_mutex_t g_print = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t th_sink;

NOINLINE uint64_t th_spin(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 11;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

NOINLINE void *th_worker(void *arg) {
    (void)arg;
    th_sink = th_spin(g_spin_seconds);
    pthread_mutex_lock(&g_print);
    printf("thread %ld\n", (long)syscall(SYS_gettid));
    pthread_mutex_unlock(&g_print);
    return NULL;
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 200;
    int batch = argc > 2 ? atoi(argv[2]) : 10;
    g_spin_seconds = (argc > 3 ? atof(argv[3]) : 5.0) / 1000.0;
    if (count < 1 || batch < 1 || batch > 1000) {
        fprintf(stderr, "usage: threads [COUNT [BATCH [SPIN_MS]]]\n");
        return 2;
    }
    pthread_t t[1000];
    int joined = 0;
    while (joined < count) {
        int n = count - joined < batch ? count - joined : batch;
        for (int i = 0; i < n; ++i)
            if (pthread_create(&t[i], NULL, th_worker, NULL) != 0)
                die("pthread_create");
        for (int i = 0; i < n; ++i)
            pthread_join(t[i], NULL);
        joined += n;
    }
    printf("joined %d\n", joined);
    return 0;
}
