// SPDX-License-Identifier: MIT
/*
 * A coroutine on a stack of the program's own (makecontext on heap
 * memory, as coroutine libraries and Go's goroutines run): neither the
 * thread's stack nor an alternate signal stack, so the sampler cannot
 * know its bounds.  The coroutine's co_body calls co_spin, which works
 * for about 0.4 s of CPU time, then the coroutine ends into main (its
 * uc_link).  Prints "coroutine done S"; exits 0.
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

#include <ucontext.h>

static ucontext_t main_ctx, co_ctx;
static volatile uint64_t sink;

NOINLINE static uint64_t co_spin(double seconds) {
    uint64_t x = 1;
    double end = thread_cpu_seconds() + seconds;
    while (thread_cpu_seconds() < end)
        x = spin_chunk(x);
    return x;
}

NOINLINE static void co_body(void) {
    sink = co_spin(0.4) + 1;
}

int main(void) {
    const size_t size = 256 * 1024;
    void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED)
        return 2;
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = size;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co_body, 0);
    if (swapcontext(&main_ctx, &co_ctx) != 0)
        return 2;
    printf("coroutine done %llu\n", (unsigned long long)(sink & 0xffff));
    return 0;
}
