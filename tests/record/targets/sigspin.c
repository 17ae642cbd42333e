// SPDX-License-Identifier: MIT
/*
 * sigspin: spends its CPU time in its own SIGALRM handler.  An interval
 * timer (setitimer ITIMER_REAL, every 20 ms) raises SIGALRM; the handler
 * ss_on_alarm() spins 15 ms of thread CPU time in ss_spin(), while main
 * waits in ss_wait() (pause) between signals.  Stacks sampled in the
 * handler are
 *     ss_spin <- ss_on_alarm <- __restore_rt <- pause <- ss_wait <- main
 * Prints "handler SECONDS" (CPU time spent in the handler) and exits 0.
 * The test expects nearly every sample under ss_spin to reach main,
 * complete, in dwarf mode.
 *
 * usage: sigspin [SECONDS]   (handler CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

static volatile double g_in_handler;
static double g_seconds;
volatile uint64_t ss_sink;

NOINLINE uint64_t ss_spin(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 7;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

NOINLINE void ss_on_alarm(int sig) {
    (void)sig;
    /* On a busy machine 15 ms of CPU take longer than the 20 ms interval:
     * SIGALRM is pending again at every return, is taken before main ever
     * runs, and main's check below would never come.  The handler stops
     * spinning once the time asked for is spent. */
    if (g_in_handler >= g_seconds)
        return;
    double start = thread_cpu_seconds();
    ss_sink += ss_spin(0.015);
    g_in_handler += thread_cpu_seconds() - start;
}

NOINLINE void ss_wait(double seconds) {
    while (g_in_handler < seconds)
        pause();
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    g_seconds = seconds;
    struct sigaction sa = {0};
    sa.sa_handler = ss_on_alarm;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) != 0)
        die("sigaction");
    struct itimerval it = {{0, 20000}, {0, 20000}};
    if (setitimer(ITIMER_REAL, &it, NULL) != 0)
        die("setitimer");
    ss_wait(seconds);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("handler %f\n", g_in_handler);
    return 0;
}
