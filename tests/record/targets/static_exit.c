// SPDX-License-Identifier: MIT
/*
 * static_exit: a statically linked program (built with -static), which the
 * profiler's agent cannot be loaded into.
 *
 *   static_exit CODE [MS]
 *       spins about MS (default 20) ms of CPU time, prints "static ran
 *       CODE" and exits with status CODE.
 *
 * Test: under cpcprof record (directly, or exec'd by spawn_child) its
 * output and status are those of the bare run, cpcprof says once that it
 * is statically linked and not sampled (naming it), and does not count it
 * among the processes that stopped reporting.
 */
#include "tests/record/targets/target_util.h"

int main(int argc, char **argv) {
    int code = argc > 1 ? atoi(argv[1]) : 0;
    double seconds = argc > 2 ? atoi(argv[2]) / 1000.0 : 0.02;
    uint64_t x = 1;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        x = spin_chunk(x);
    printf("static ran %d\n", code + (int)(x & 0));
    return code;
}
