// SPDX-License-Identifier: MIT
/*
 * ownhandler: a program that takes the sampling signal for itself after it
 * has started: SIGEMT of <libcpc.h> (SIGRTMIN+5 unless CPC_SIGEMT says
 * otherwise) - the signal the profiler's agent samples with.
 *
 *   ownhandler handler   spins 0.3 s, installs its own SIGEMT handler,
 *                        spins 0.3 s, installs it again, spins 0.3 s
 *   ownhandler block     spins 0.3 s, blocks SIGEMT in the main thread,
 *                        spins 0.3 s, then a new thread blocks it too and
 *                        spins 0.3 s
 *
 * All spinning is in oh_spin().  It prints "ownhandler MODE ok calls N" (N:
 * calls of its own handler) and exits 0.  The test expects it to keep
 * running and exit 0 under the profiler, cpcprof to exit 0, and the
 * recorder to warn about the sampling signal exactly once.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <libcpc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static atomic_long g_calls;
volatile uint64_t oh_sink;

static void own_handler(int sig, siginfo_t *si, void *uc) {
    (void)sig, (void)si, (void)uc;
    atomic_fetch_add(&g_calls, 1);
}

NOINLINE void oh_spin(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 19;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    oh_sink = x;
}

static void install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = own_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGEMT, &sa, NULL) != 0)
        die("sigaction");
}

static void block(void) {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGEMT);
    if (pthread_sigmask(SIG_BLOCK, &s, NULL) != 0)
        die("pthread_sigmask");
}

static void *blocking_thread(void *arg) {
    (void)arg;
    block();
    oh_spin(0.3);
    return NULL;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "handler") == 0) {
        oh_spin(0.3);
        install();
        oh_spin(0.3);
        install();
        oh_spin(0.3);
    } else if (strcmp(mode, "block") == 0) {
        oh_spin(0.3);
        block();
        oh_spin(0.3);
        pthread_t t;
        if (pthread_create(&t, NULL, blocking_thread, NULL) != 0)
            die("pthread_create");
        pthread_join(t, NULL);
    } else {
        fprintf(stderr, "usage: ownhandler handler|block\n");
        return 2;
    }
    printf("ownhandler %s ok calls %ld\n", mode, atomic_load(&g_calls));
    return 0;
}
