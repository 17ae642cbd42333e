// SPDX-License-Identifier: MIT
/*
 * pctx_exec MODE ...: process events for the libpctx tests.
 *   exit N          exits with status N.
 *   fork-true FILE  forks a child that execs /bin/true, writes the child's
 *                   pid to FILE, waits for it; exits 0 if it exited 0.
 *   vfork-true FILE the same with vfork(2).
 *   chain N         faults in 200*(N+1) fresh pages, then execs itself as
 *                   "chain N-1"; "chain 0" faults in 200 pages and exits 0.
 *                   Each image's page-faults are its own.
 *   prctl-off N     disables its own perf events (PR_TASK_PERF_EVENTS_DISABLE,
 *                   what cpc_disable would reach for), then faults in N
 *                   fresh pages and exits 0.
 *   thread-exec X   a second thread execs /bin/true while the first
 *                   sleeps: the process (same pid) becomes /bin/true.
 *   main-exits MS   starts a thread, writes "ready\n" to stdout and ends
 *                   the main thread (pthread_exit); the other thread
 *                   sleeps MS milliseconds and returns: exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void touch(long pages) {
    size_t len = (size_t)pages * 4096;
    volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(2);
    madvise((void *)p, len, MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; ++i)
        p[i * 4096] = 1;
}

static int fork_true(const char *file, int use_vfork) {
    pid_t c = use_vfork ? vfork() : fork();
    if (c == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    if (c < 0)
        return 2;
    FILE *f = fopen(file, "w");
    if (f != NULL) {
        fprintf(f, "%d\n", (int)c);
        fclose(f);
    }
    int st;
    if (waitpid(c, &st, 0) != c)
        return 3;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static void *nap(void *arg) {
    struct timespec ts = {0, 0};
    long ms = atol(arg);
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
    return NULL;
}

static void *exec_true(void *arg) {
    (void)arg;
    execl("/bin/true", "true", (char *)NULL);
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "exit"))
        return atoi(argv[2]);
    if (!strcmp(mode, "fork-true"))
        return fork_true(argv[2], 0);
    if (!strcmp(mode, "vfork-true"))
        return fork_true(argv[2], 1);
    if (!strcmp(mode, "prctl-off")) {
        prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0);
        touch(atol(argv[2]));
        return 0;
    }
    if (!strcmp(mode, "main-exits")) {
        pthread_t t;
        if (pthread_create(&t, NULL, nap, argv[2]) != 0)
            return 2;
        printf("ready\n");
        fflush(stdout);
        pthread_exit(NULL);
    }
    if (!strcmp(mode, "thread-exec")) {
        pthread_t t;
        if (pthread_create(&t, NULL, exec_true, NULL) != 0)
            return 2;
        for (;;)
            pause();
    }
    if (!strcmp(mode, "chain")) {
        int n = atoi(argv[2]);
        touch(200L * (n + 1));
        if (n == 0)
            return 0;
        char next[16];
        snprintf(next, sizeof next, "%d", n - 1);
        execl("/proc/self/exe", "pctx_exec", "chain", next, (char *)NULL);
        return 2;
    }
    return 2;
}
