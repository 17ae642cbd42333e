// SPDX-License-Identifier: MIT
/*
 * A thread that blocks every signal with a raw rt_sigprocmask system call
 * (which no library can interpose) and works with them blocked, beside a
 * main thread that works with them open.  The profiler cannot sample the
 * blocked thread while it works; what it must not do is lose its
 * overflows without a trace, or change the program.
 *
 * usage: sigblock [--work W] [--libc]
 *   --libc: the worker blocks them with pthread_sigmask instead, which the
 *   profiler can see (and keeps its signals out of).
 *   Each thread does W rounds (default 3000, ~0.3 s of CPU).  Prints
 *   "sum S" (the same for every run with the same W), then on stderr "cpu
 *   MAIN BLOCKED", each thread's CPU seconds, "clock main PERIODS TAKEN"
 *   and "clock blocked PERIODS TAKEN", the kernel's count of each thread's
 *   clock periods over its work (target_util.h: ref_clock), and "process
 *   SECONDS", the CPU time of the whole process; and "blocked ok" when the
 *   worker's mask still blocked everything at its end.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int g_work = 3000;
static uint64_t g_sum[2];
static double g_cpu[2];
static struct ref_tally g_ref[2];
static int g_still_blocked;
static int g_libc;

NOINLINE static uint64_t work(uint64_t seed) {
    uint64_t sum = 0;
    for (int i = 0; i < g_work; ++i)
        sum += spin_chunk(seed + (uint64_t)i);
    return sum;
}

static void *blocked_main(void *arg) {
    (void)arg;
    uint64_t all = ~(uint64_t)0, now = 0;
    if (g_libc) {
        sigset_t every;
        sigfillset(&every);
        if (pthread_sigmask(SIG_BLOCK, &every, NULL) != 0)
            die("pthread_sigmask");
    } else if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof all) != 0) {
        die("rt_sigprocmask");
    }
    struct ref_clock ref;
    ref_clock_start(&ref);
    double t0 = thread_cpu_seconds();
    g_sum[1] = work(2);
    g_cpu[1] = thread_cpu_seconds() - t0;
    ref_clock_stop(&ref, &g_ref[1]);
    /* As the program sees it (the profiler may keep its own signals out of
     * a mask set through the library; it reports them as blocked). */
    sigset_t seen;
    pthread_sigmask(SIG_BLOCK, NULL, &seen);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, sizeof now);
    /* SIGKILL and SIGSTOP cannot be blocked. */
    uint64_t want = all & ~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)));
    g_still_blocked = g_libc ? sigismember(&seen, SIGUSR1) == 1 : now == want;
    return NULL;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
            g_work = atoi(argv[++i]);
        else if (strcmp(argv[i], "--libc") == 0)
            g_libc = 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, blocked_main, NULL) != 0)
        die("pthread_create");
    struct ref_clock ref;
    ref_clock_start(&ref);
    double t0 = thread_cpu_seconds();
    g_sum[0] = work(1);
    g_cpu[0] = thread_cpu_seconds() - t0;
    ref_clock_stop(&ref, &g_ref[0]);
    pthread_join(t, NULL);
    printf("sum %llu\n", (unsigned long long)g_sum[0] + g_sum[1]);
    fprintf(stderr, "cpu %.6f %.6f\n", g_cpu[0], g_cpu[1]);
    ref_clock_print(stderr, "main", &g_ref[0]);
    ref_clock_print(stderr, "blocked", &g_ref[1]);
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    fprintf(stderr, "process %.6f\n", (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
    if (g_still_blocked)
        printf("blocked ok\n");
    return 0;
}
