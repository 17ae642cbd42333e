// SPDX-License-Identifier: MIT
/*
 * pctx_sleeper MS: a process to capture.  Starts a second thread, writes
 * "ready\n" to stdout, and both threads sleep in 10 ms steps until MS
 * milliseconds have passed since the start; then it exits 0.  A capture
 * and release in between must not change that.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long end_ms;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *nap(void *arg) {
    (void)arg;
    while (now_ms() < end_ms) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    end_ms = now_ms() + (argc > 1 ? atol(argv[1]) : 1000);
    pthread_t t;
    if (pthread_create(&t, NULL, nap, NULL) != 0)
        return 2;
    printf("ready\n");
    fflush(stdout);
    nap(NULL);
    pthread_join(t, NULL);
    return 0;
}
