// SPDX-License-Identifier: MIT
/*
 * crash: busy for 2 s of CPU time in crash_busy(), then dies of SIGSEGV in
 * crash_now() (a store through a null pointer).
 *
 * Before dying it prints, flushed:
 *     clock busy PERIODS TAKEN  the kernel's count of crash_busy's clock
 *                         periods (target_util.h: ref_clock)
 *     busy SECONDS        CPU time spent in crash_busy
 *     crash MONO_NS       CLOCK_MONOTONIC just before the fault
 * The test expects the samples up to the crash in the profile (as many in
 * crash_busy as the reference allows, the last one shortly before
 * MONO_NS), the process
 * recorded as killed by signal 11, and cpcprof to exit 139.
 *
 * With THREADS, that many more threads spin in crash_helper() meanwhile,
 * so that the agent's drain thread has many rings to empty when the crash
 * comes (the test expects the sample accounting to balance all the same).
 *
 * usage: crash [SECONDS [THREADS]]
 */
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <sys/resource.h>

volatile uint64_t crash_sink;
int *volatile crash_target_address; /* null; volatile so the store stays */

NOINLINE void crash_busy(double seconds) {
    double end = thread_cpu_seconds() + seconds;
    uint64_t x = 1;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    crash_sink = x;
}

NOINLINE void *crash_helper(void *arg) {
    (void)arg;
    uint64_t x = 2;
    for (;;)
        crash_sink = x = spin_chunk(x);
    return NULL;
}

NOINLINE void crash_now(void) {
    *crash_target_address = 42;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    /* No core file: the test is about the signal, not the dump. */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    for (int i = 0; i < threads; ++i) {
        pthread_t t;
        if (pthread_create(&t, NULL, crash_helper, NULL) != 0)
            die("pthread_create");
    }
    struct ref_clock ref;
    struct ref_tally busy = {0, 0, 0};
    double t0 = thread_cpu_seconds();
    ref_clock_start(&ref);
    crash_busy(seconds);
    ref_clock_stop(&ref, &busy);
    ref_clock_print(stdout, "busy", &busy);
    printf("busy %.6f\n", thread_cpu_seconds() - t0);
    printf("crash %lld\n", (long long)mono_ns());
    fflush(stdout);
    crash_now();
    return 0;
}
