// SPDX-License-Identifier: MIT
/*
 * jit: a JIT's life in small.  Copies two functions compiled with frame
 * pointers (section jit_code: jt_outer calls jt_inner, a relative call
 * that stays right in the copy) into anonymous memory, makes it
 * executable (written read-write, then mprotect to read-execute, as
 * W^X JITs do), writes /tmp/perf-PID.map naming the copies as node's
 * --perf-basic-prof would, and spends its CPU time in the copy of
 * jt_inner, called from jt_run through the copy of jt_outer.  Prints
 * "jit START END" (the code, hex) and "spun SECONDS", exits 0.  Leaves
 * the map file for the symbolizer; the test removes it.
 *
 * With "grow", a second copy (named hot_loop2, outer2) on the next page
 * becomes executable halfway, so that the region grows in place, as a
 * JIT's code space does; it prints "grown START END" for that copy and
 * spends the second half there.
 *
 * usage: jit [SECONDS [grow]]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

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

struct copy {
    uintptr_t inner, outer, end;
};

/* The code into region (read-write), and its functions' addresses there. */
static struct copy place(char *region) {
    size_t size = (size_t)(__stop_jit_code - __start_jit_code);
    memcpy(region, __start_jit_code, size);
    struct copy c;
    c.inner = (uintptr_t)region + (uintptr_t)((const char *)jt_inner - __start_jit_code);
    c.outer = (uintptr_t)region + (uintptr_t)((const char *)jt_outer - __start_jit_code);
    c.end = (uintptr_t)region + size;
    if (!(c.inner < c.outer && c.outer < c.end))
        die("jit_code does not hold jt_inner before jt_outer");
    return c;
}

/* node's format: START SIZE NAME, hex without 0x */
static void name(FILE *map, const struct copy *c, const char *suffix) {
    fprintf(map, "%lx %lx LazyCompile:*hot_loop%s jit.js:3\n", (unsigned long)c->inner,
            (unsigned long)(c->outer - c->inner), suffix);
    fprintf(map, "%lx %lx LazyCompile:*outer%s jit.js:9\n", (unsigned long)c->outer,
            (unsigned long)(c->end - c->outer), suffix);
}

static void spin(const struct copy *c, double seconds) {
    uint64_t (*run)(uint64_t, long) = (uint64_t(*)(uint64_t, long))c->outer;
    uint64_t x = 1;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        x = jt_run(run, x);
    printf("spun %f (%llx)\n", thread_cpu_seconds() - start, (unsigned long long)x);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    int grow = argc > 2 && strcmp(argv[2], "grow") == 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if ((size_t)(__stop_jit_code - __start_jit_code) > page)
        die("jit_code is larger than a page");
    char *region = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        die("mmap");
    struct copy first = place(region), second = place(region + page);
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    FILE *map = fopen(path, "w");
    if (map == NULL)
        die(path);
    name(map, &first, "");
    name(map, &second, "2");
    if (fclose(map) != 0)
        die(path);
    if (mprotect(region, page, PROT_READ | PROT_EXEC) != 0)
        die("mprotect");
    printf("jit %lx %lx\n", (unsigned long)(uintptr_t)region, (unsigned long)first.end);
    fflush(stdout);
    spin(&first, grow ? seconds / 2 : seconds);
    if (!grow)
        return 0;
    /* The region grows: its second page becomes code too. */
    if (mprotect(region + page, page, PROT_READ | PROT_EXEC) != 0)
        die("mprotect");
    printf("grown %lx %lx\n", (unsigned long)(uintptr_t)(region + page), (unsigned long)second.end);
    fflush(stdout);
    spin(&second, seconds / 2);
    return 0;
}
