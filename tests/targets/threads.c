// SPDX-License-Identifier: MIT
/*
 * pctx_threads OUTFILE [UNIT [SLEEPS]]: three threads, started together;
 * thread i faults in UNIT*(i+1) fresh pages (default 1000) and sleeps
 * SLEEPS times for 100 us (default 200: as many voluntary context
 * switches), then reads its own counts with getrusage(RUSAGE_THREAD).
 * After joining them, writes one line per thread to OUTFILE:
 *     tid minflt nvcsw nivcsw
 * and exits 0.  The test compares these with the counters it bound to each
 * thread through cpc_bind_pctx.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 3

struct slot {
    long pages;
    int sleeps;
    pid_t tid;
    struct rusage ru;
};

static pthread_barrier_t start;

static void *worker(void *arg) {
    struct slot *s = arg;
    s->tid = gettid();
    pthread_barrier_wait(&start);
    size_t len = (size_t)s->pages * 4096;
    volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(2);
    madvise((void *)p, len, MADV_NOHUGEPAGE); /* one fault per page */
    for (long i = 0; i < s->pages; ++i)
        p[i * 4096] = 1;
    for (int i = 0; i < s->sleeps; ++i) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    getrusage(RUSAGE_THREAD, &s->ru);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    long unit = argc > 2 ? atol(argv[2]) : 1000;
    int sleeps = argc > 3 ? atoi(argv[3]) : 200;
    struct slot slots[NTHREADS];
    pthread_t th[NTHREADS];
    pthread_barrier_init(&start, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; ++i) {
        slots[i].pages = unit * (i + 1);
        slots[i].sleeps = sleeps;
        if (pthread_create(&th[i], NULL, worker, &slots[i]) != 0)
            return 2;
    }
    for (int i = 0; i < NTHREADS; ++i)
        pthread_join(th[i], NULL);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL)
        return 2;
    for (int i = 0; i < NTHREADS; ++i)
        fprintf(out, "%d %ld %ld %ld\n", (int)slots[i].tid, slots[i].ru.ru_minflt,
                slots[i].ru.ru_nvcsw, slots[i].ru.ru_nivcsw);
    fclose(out);
    return 0;
}
