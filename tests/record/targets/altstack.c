// SPDX-License-Identifier: MIT
/*
 * Threads with small alternate signal stacks, as Rust gives every thread
 * (8 KiB with a guard page) and as C programs make them (MINSIGSTKSZ,
 * AT_MINSIGSTKSZ), each with canaries around it and a SIGSEGV handler on
 * it.  Sampling must leave every byte around them as it was.
 *
 * usage: altstack 2048|min|8192g [--threads N] [--work W]
 *   Each of the main thread and N others (default 2) does W rounds
 *   (default 4000, ~0.4 s of CPU) of recursive integer work, then checks
 *   its canaries.  Prints "sum S" (the same for every run with the same
 *   W) and "canaries intact" or which were damaged; exits 0 when intact,
 *   4 when not, 3 from the SIGSEGV handler.
 *
 * usage: altstack painted-signal
 *   The same, for 100 signals raised to an empty handler instead of the
 *   work: how deep the kernel's signal frame goes on this machine.
 *
 * usage: altstack painted [--work W]
 *   One thread on a stack of its own, painted with a pattern once it
 *   runs; prints "stack_used BYTES", how deep below the painted point the
 *   stack was written while it worked (signal frames and handlers
 *   included).
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

enum { kCanary = 512, kPattern = 0xA5 };
static size_t g_size;
static int g_guarded;
static int g_work = 4000;

static void on_segv(int sig) {
    (void)sig;
    static const char msg[] = "SIGSEGV on the alternate stack\n";
    write(2, msg, sizeof msg - 1);
    _exit(3);
}

NOINLINE static uint64_t recurse(int depth, uint64_t x) {
    if (depth == 0)
        return spin_chunk(x);
    return recurse(depth - 1, x * 31 + (uint64_t)depth) + 1;
}

static uint64_t work(uint64_t seed) {
    uint64_t sum = 0;
    for (int i = 0; i < g_work; ++i)
        sum += recurse(8 + i % 8, seed + (uint64_t)i);
    return sum;
}

/* The alternate stack of the calling thread, canaries (or a guard page)
 * around it; returns the region to check. */
static unsigned char *install_altstack(void) {
    unsigned char *region;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    if (g_guarded) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        region =
            mmap(NULL, g_size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED)
            die("mmap");
        if (mprotect(region, page, PROT_NONE) != 0)
            die("mprotect");
        ss.ss_sp = region + page;
    } else {
        region = malloc(g_size + 2 * kCanary);
        if (region == NULL)
            die("malloc");
        memset(region, kPattern, g_size + 2 * kCanary);
        ss.ss_sp = region + kCanary;
    }
    ss.ss_size = g_size;
    if (sigaltstack(&ss, NULL) != 0)
        die("sigaltstack");
    return region;
}

/* Bytes of the canaries that are no longer the pattern. */
static int damaged(const unsigned char *region) {
    if (g_guarded)
        return 0; /* a write below the guard page would have faulted */
    int bad = 0;
    for (int i = 0; i < kCanary; ++i) {
        bad += region[i] != kPattern;
        bad += region[kCanary + g_size + i] != kPattern;
    }
    return bad;
}

static uint64_t g_sums[64];
static int g_bad[64];

static void *thread_main(void *arg) {
    int k = (int)(intptr_t)arg;
    unsigned char *region = install_altstack();
    g_sums[k] = work((uint64_t)k);
    g_bad[k] = damaged(region);
    return NULL;
}

static unsigned char *g_painted;
static uintptr_t g_paint_top;

/* Paints what lies below this frame again (thread start-up code, the
 * profiler's included, used it), then works: what is written below from
 * here on is the work's own use and that of the signals it takes. */
NOINLINE static void paint_below_and_work(void) {
    volatile unsigned char here = 0;
    g_paint_top = (uintptr_t)&here - 512;
    memset(g_painted, kPattern, g_paint_top - (uintptr_t)g_painted);
    g_sums[0] = work(1) + here;
}

static void on_usr1(int sig) {
    (void)sig;
}

NOINLINE static void paint_below_and_signal(void) {
    volatile unsigned char here = 0;
    g_paint_top = (uintptr_t)&here - 512;
    memset(g_painted, kPattern, g_paint_top - (uintptr_t)g_painted);
    for (int i = 0; i < 100; ++i)
        raise(SIGUSR1);
    g_sums[0] = here;
}

static int g_signal_only;

static void *painted_main(void *arg) {
    (void)arg;
    if (g_signal_only)
        paint_below_and_signal();
    else
        paint_below_and_work();
    return NULL;
}

static int painted(void) {
    size_t size = 256 * 1024;
    unsigned char *stack =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED)
        die("mmap");
    g_painted = stack;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, stack, size);
    pthread_t t;
    if (pthread_create(&t, &attr, painted_main, NULL) != 0)
        die("pthread_create");
    pthread_join(t, NULL);
    size_t low = 0;
    while (low < size && stack[low] == kPattern)
        ++low;
    printf("sum %llu\nstack_used %zu\n", (unsigned long long)g_sums[0],
           (size_t)(g_paint_top - (uintptr_t)(stack + low)));
    return 0;
}

int main(int argc, char **argv) {
    int threads = 2;
    const char *mode = argc > 1 ? argv[1] : "8192g";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--work") == 0)
            g_work = atoi(argv[i + 1]);
    }
    if (threads < 0 || threads > 62)
        threads = 2;
    if (strcmp(mode, "painted") == 0)
        return painted();
    if (strcmp(mode, "painted-signal") == 0) {
        signal(SIGUSR1, on_usr1);
        g_signal_only = 1;
        return painted();
    }
    if (strcmp(mode, "2048") == 0)
        g_size = 2048;
    else if (strcmp(mode, "min") == 0)
        /* The kernel's signal frame size for this CPU, but never under
         * MINSIGSTKSZ (2048), which sigaltstack refuses (ENOMEM): on CPUs
         * without AVX-512 AT_MINSIGSTKSZ is smaller (1776 on an AVX2 EPYC). */
        g_size = getauxval(AT_MINSIGSTKSZ) > 2048 ? getauxval(AT_MINSIGSTKSZ) : 2048;
    else if (strcmp(mode, "8192g") == 0)
        g_size = 8192, g_guarded = 1;
    else {
        fprintf(stderr, "altstack: unknown mode %s\n", mode);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    pthread_t t[64];
    for (int k = 1; k <= threads; ++k)
        if (pthread_create(&t[k], NULL, thread_main, (void *)(intptr_t)k) != 0)
            die("pthread_create");
    thread_main((void *)0);
    for (int k = 1; k <= threads; ++k)
        pthread_join(t[k], NULL);
    uint64_t sum = 0;
    int bad = 0;
    for (int k = 0; k <= threads; ++k) {
        sum += g_sums[k];
        if (g_bad[k] != 0) {
            printf("thread %d: %d canary bytes damaged\n", k, g_bad[k]);
            bad = 1;
        }
    }
    printf("sum %llu\n", (unsigned long long)sum);
    if (bad)
        return 4;
    printf("canaries intact\n");
    return 0;
}
