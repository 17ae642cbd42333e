// SPDX-License-Identifier: MIT
/*
 * fd_threads: many threads, then the program's own files, near the
 * descriptor limit.
 *
 *   fd_threads THREADS FILES
 *       names itself "fdt-main" (prctl), starts THREADS threads (64 KiB
 *       stacks) that name themselves "fdt-worker", each spinning about 1 ms
 *       of CPU time and then waiting on a barrier; once all have started,
 *       the main thread opens /dev/null FILES times and prints "opened
 *       FILES" or "open failed after K: ERROR"; then releases the threads,
 *       joins them, prints "joined THREADS" and exits 0 when every open
 *       succeeded, else 1.
 *
 * Test, under `prlimit --nofile=1024` with 1,000 threads and 200 files:
 * the bare run opens them all; so must the profiled run (the profiler
 * keeps its descriptors within a budget and leaves the threads it cannot
 * give counters unsampled, and says how many).  With fewer threads: the
 * thread names reach the profile, and the profiler reads no thread's
 * /proc/self/task/TID/comm (whose /proc entry costs the thread ~0.7 ms at
 * its end).
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static pthread_barrier_t started, release;

static void *worker(void *arg) {
    pthread_setname_np(pthread_self(), "fdt-worker");
    uint64_t x = (uint64_t)(uintptr_t)arg;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < 0.001)
        x = spin_chunk(x);
    pthread_barrier_wait(&started);
    pthread_barrier_wait(&release);
    return (void *)(uintptr_t)(x & 1);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fd_threads THREADS FILES\n");
        return 2;
    }
    int n = atoi(argv[1]), files = atoi(argv[2]);
    prctl(PR_SET_NAME, "fdt-main");
    pthread_t *t = calloc((size_t)n, sizeof *t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_barrier_init(&started, NULL, (unsigned)n + 1);
    pthread_barrier_init(&release, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; ++i)
        if (pthread_create(&t[i], &attr, worker, (void *)(uintptr_t)i) != 0)
            die("pthread_create");
    pthread_barrier_wait(&started);
    int opened = 0, err = 0;
    for (; opened < files; ++opened) {
        if (open("/dev/null", O_RDONLY) < 0) {
            err = errno;
            break;
        }
    }
    if (opened == files)
        printf("opened %d\n", files);
    else
        printf("open failed after %d: %s\n", opened, strerror(err));
    fflush(stdout);
    pthread_barrier_wait(&release);
    for (int i = 0; i < n; ++i)
        pthread_join(t[i], NULL);
    printf("joined %d\n", n);
    return opened == files ? 0 : 1;
}
