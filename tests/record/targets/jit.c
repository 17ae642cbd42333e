/*
 * jit: a JIT's life in small.  Copies two functions compiled with frame
 * pointers (section jit_code: jt_outer calls jt_inner, a relative call
 * that stays right in the copy) into anonymous memory, makes it
 * executable (written read-write, then mprotect to read-execute, as
 * W^X JITs do), writes /tmp/perf-PID.map naming the copies as node's
 * --perf-basic-prof would, and spends its CPU time in the copy of
 * jt_inner, called from jt_run through the copy of jt_outer.  Prints
 * "jit START END" (the region, hex) and "spun SECONDS", exits 0.  Leaves
 * the map file for the symbolizer; the test removes it.
 *
 * usage: jit [SECONDS]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "target_util.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JIT_CODE __attribute__((section("jit_code"), noinline, noclone, used))

/* Built with -fno-toplevel-reorder: the section holds them in this order. */
JIT_CODE static uint64_t jt_inner(uint64_t x, long n) {
    volatile uint64_t acc = x; /* a stack slot: the function keeps a frame */
    for (long i = 0; i < n; ++i)
        acc = (acc ^ (acc >> 17)) * 0x9E3779B97F4A7C15ull + (uint64_t)i;
    return acc;
}

JIT_CODE uint64_t jt_outer(uint64_t x, long n) {
    x = jt_inner(x, n);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return x + 1;
}

extern const char __start_jit_code[], __stop_jit_code[];

NOINLINE uint64_t jt_run(uint64_t (*outer)(uint64_t, long), uint64_t x) {
    x = outer(x, 200000);
    __asm__ volatile("" ::: "memory");
    return x;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    size_t size = (size_t)(__stop_jit_code - __start_jit_code);
    long page = sysconf(_SC_PAGESIZE);
    size_t len = (size + (size_t)page - 1) & ~((size_t)page - 1);
    char *region = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        die("mmap");
    memcpy(region, __start_jit_code, size);
    if (mprotect(region, len, PROT_READ | PROT_EXEC) != 0)
        die("mprotect");
    uintptr_t inner = (uintptr_t)region + ((const char *)jt_inner - __start_jit_code);
    uintptr_t outer = (uintptr_t)region + ((const char *)jt_outer - __start_jit_code);
    uintptr_t end = (uintptr_t)region + size;
    if (!(inner < outer && outer < end))
        die("jit_code does not hold jt_inner before jt_outer");
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(path, "w");
    if (map == NULL)
        die(path);
    /* node's format: START SIZE NAME, hex without 0x */
    fprintf(map, "%lx %lx LazyCompile:*hot_loop jit.js:3\n", (unsigned long)inner,
            (unsigned long)(outer - inner));
    fprintf(map, "%lx %lx LazyCompile:*outer jit.js:9\n", (unsigned long)outer,
            (unsigned long)(end - outer));
    if (fclose(map) != 0)
        die(path);
    printf("jit %lx %lx\n", (unsigned long)(uintptr_t)region, (unsigned long)end);
    fflush(stdout);
    uint64_t (*run)(uint64_t, long) = (uint64_t(*)(uint64_t, long))outer;
    uint64_t x = 1;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        x = jt_run(run, x);
    printf("spun %f (%llx)\n", thread_cpu_seconds() - start, (unsigned long long)x);
    return 0;
}
