// SPDX-License-Identifier: MIT
/*
 * sigloop: a busy program that spends about half its CPU time in its own
 * SIGALRM handler.  An interval timer (setitimer ITIMER_REAL) raises
 * SIGALRM every INTERVAL; the handler sl_on_alarm() spins half of it on
 * the thread's CPU clock in sl_spin(), and main meanwhile runs a short
 * call chain in a loop (main <- sl_loop <- sl_step <- sl_leaf, a few
 * hundred nanoseconds a call), so the signal lands anywhere in it:
 * function entries and returns included.  Stacks sampled in the handler
 * are
 *     sl_spin <- sl_on_alarm <- __restore_rt <- (sl_leaf|sl_step|sl_loop) <- ... <- main
 *
 * usage: sigloop [SECONDS] [plain|altstack|fast]
 *   SECONDS   CPU seconds to run (default 2)
 *   plain     every 10 ms, the handler on the thread's stack (default)
 *   altstack  the same, the handler on an alternate signal stack
 *             (sigaltstack, SA_ONSTACK)
 *   fast      every 0.9 ms, the handler spinning 0.45 ms (not 1 ms: where
 *             perf_event_open is refused, cpu-clock is a CPU-time timer,
 *             which the kernel checks at its tick, 4 ms here; a program
 *             timer whose period divides the tick's is seen at the same
 *             point of its cycle at every sample, in the handler always
 *             or never)
 * Prints "handler SECONDS loop SECONDS" (CPU time in the handler and in
 * the loop) and exits 0.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static double g_spin_s;
static volatile double g_in_handler;
volatile uint64_t sl_sink;

NOINLINE uint64_t sl_spin(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 7;
    while (thread_cpu_seconds() < end)
        for (int i = 0; i < 500; ++i)
            x = (x ^ (x >> 17)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return x;
}

NOINLINE void sl_on_alarm(int sig) {
    (void)sig;
    double start = thread_cpu_seconds();
    sl_sink += sl_spin(g_spin_s);
    g_in_handler += thread_cpu_seconds() - start;
}

NOINLINE uint64_t sl_leaf(uint64_t x) {
    for (int i = 0; i < 40; ++i)
        x = (x ^ (x >> 13)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return x;
}

NOINLINE uint64_t sl_step(uint64_t x) {
    x = sl_leaf(x) + 1;
    return sl_leaf(x ^ 0x55);
}

NOINLINE void sl_loop(double seconds) {
    uint64_t x = 1;
    double end = thread_cpu_seconds() + seconds;
    while (thread_cpu_seconds() < end)
        for (int i = 0; i < 64; ++i)
            x = sl_step(x);
    sl_sink += x;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    const char *mode = argc > 2 ? argv[2] : "plain";
    long interval_us = 10000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sl_on_alarm;
    sigemptyset(&sa.sa_mask);
    if (strcmp(mode, "fast") == 0) {
        interval_us = 900;
    } else if (strcmp(mode, "altstack") == 0) {
        static char alt[64 * 1024];
        stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
        if (sigaltstack(&ss, NULL) != 0)
            die("sigaltstack");
        sa.sa_flags |= SA_ONSTACK;
    } else if (strcmp(mode, "plain") != 0) {
        fprintf(stderr, "sigloop: unknown mode %s (plain, altstack, fast)\n", mode);
        return 2;
    }
    g_spin_s = (double)interval_us / 2e6;
    if (sigaction(SIGALRM, &sa, NULL) != 0)
        die("sigaction");
    struct itimerval it = {{0, interval_us}, {0, interval_us}};
    if (setitimer(ITIMER_REAL, &it, NULL) != 0)
        die("setitimer");
    double start = thread_cpu_seconds();
    sl_loop(seconds);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    double total = thread_cpu_seconds() - start;
    printf("handler %f loop %f\n", g_in_handler, total - g_in_handler);
    return 0;
}
