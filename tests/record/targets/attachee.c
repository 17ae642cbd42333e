// SPDX-License-Identifier: MIT
/*
 * attachee GO_FILE THREADS [IDLE]: a program that already runs when it is
 * profiled (cpcprof record -p).  It starts IDLE threads (default 0) that
 * only wait for GO_FILE, prints "ready PID", waits for GO_FILE
 * to exist (the test creates it once the recorder says it is attached),
 * then starts THREADS threads and, in each thread and itself, alternates
 * 200 ms of CPU time between att_compute (user mode) and att_touch_pages
 * (fresh pages written: page faults, the kernel's time).  It prints
 * "progress N" after each of its main thread's rounds and "done" at the
 * end, exits 0, and 3 if any signal reached it (it catches them all):
 * being sampled must not show.
 */
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <signal.h>

static volatile sig_atomic_t g_signals;

static void on_signal(int sig) {
    (void)sig;
    g_signals = g_signals + 1;
}

NOINLINE uint64_t att_compute(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 1;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

NOINLINE void att_touch_pages(size_t pages) {
    size_t len = pages * 4096;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    for (size_t i = 0; i < pages; ++i)
        p[i * 4096] = 1;
    munmap(p, len);
}

static const char *g_go;

static void *idle(void *arg) {
    (void)arg;
    while (access(g_go, F_OK) != 0)
        usleep(20000);
    return NULL;
}

static void *rounds(void *arg) {
    int main_thread = arg != NULL;
    for (int r = 0; r < 4; ++r) {
        att_compute(0.025);
        att_touch_pages(4096);
        if (main_thread) {
            printf("progress %d\n", r + 1);
            fflush(stdout);
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: attachee GO_FILE THREADS [IDLE]\n");
        return 2;
    }
    g_go = argv[1];
    int nidle = argc == 4 ? atoi(argv[3]) : 0;
    pthread_t *idlers = calloc((size_t)nidle + 1, sizeof *idlers);
    pthread_attr_t small;
    pthread_attr_init(&small);
    pthread_attr_setstacksize(&small, 64 * 1024);
    for (int i = 0; i < nidle; ++i)
        if (pthread_create(&idlers[i], &small, idle, NULL) != 0)
            return 5;
    struct sigaction sa = {.sa_handler = on_signal};
    for (int s = 1; s < NSIG; ++s)
        if (s != SIGKILL && s != SIGSTOP)
            sigaction(s, &sa, NULL);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (int waited = 0; access(argv[1], F_OK) != 0; ++waited) {
        if (waited > 30000)
            return 4; /* nobody came: 30 s */
        usleep(1000);
    }
    int n = atoi(argv[2]);
    pthread_t t[64];
    for (int i = 0; i < n && i < 64; ++i)
        pthread_create(&t[i], NULL, rounds, NULL);
    rounds((void *)1);
    for (int i = 0; i < n && i < 64; ++i)
        pthread_join(t[i], NULL);
    for (int i = 0; i < nidle; ++i)
        pthread_join(idlers[i], NULL);
    free(idlers);
    printf("done\n");
    return g_signals == 0 ? 0 : 3;
}
