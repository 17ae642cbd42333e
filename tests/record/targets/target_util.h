/*
 * Helpers shared by the record test targets: CPU-time clocks and a busy
 * loop.  Everything is static inline so that each target stays one file.
 */
#ifndef RECORD_TARGET_UTIL_H
#define RECORD_TARGET_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

static inline double thread_cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* About 100 us of integer work; the result keeps it from being optimised out. */
static inline uint64_t spin_chunk(uint64_t x) {
    for (int i = 0; i < 60000; ++i)
        x = (x ^ (x >> 17)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return x;
}

static inline void die(const char *what) {
    perror(what);
    exit(1);
}

#endif
