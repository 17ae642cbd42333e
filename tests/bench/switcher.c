// SPDX-License-Identifier: MIT
/*
 * bench_switcher: two threads hand a byte back and forth through two
 * pipes, ROUNDS times: each hand-over is a thread blocking and another
 * waking, about four context switches per round, as fast as the machine
 * switches (100,000 and more a second here).  Prints
 *     switcher ROUNDS WALL_SECONDS CPU_SECONDS
 * timed by itself on CLOCK_MONOTONIC, and the CPU time its threads took
 * (user and system, getrusage), for bench_off_cpu.py.
 * usage: bench_switcher [ROUNDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int g_ping[2], g_pong[2];
static long g_rounds = 100000;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *echo(void *arg) {
    (void)arg;
    char c;
    for (long i = 0; i < g_rounds; ++i)
        if (read(g_ping[0], &c, 1) != 1 || write(g_pong[1], &c, 1) != 1)
            exit(2);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1)
        g_rounds = atol(argv[1]);
    if (pipe(g_ping) != 0 || pipe(g_pong) != 0)
        return 2;
    pthread_t t;
    pthread_create(&t, NULL, echo, NULL);
    double start = now_s();
    char c = 'x';
    for (long i = 0; i < g_rounds; ++i)
        if (write(g_ping[1], &c, 1) != 1 || read(g_pong[0], &c, 1) != 1)
            return 2;
    double wall = now_s() - start;
    pthread_join(t, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    printf("switcher %ld %.6f %.6f\n", g_rounds, wall, cpu);
    return 0;
}
