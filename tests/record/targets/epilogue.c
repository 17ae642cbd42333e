// SPDX-License-Identifier: MIT
/*
 * epilogue: spends its CPU time right after `pop %rbp`, where the CFI says
 * CFA = rsp + 8 and still names the caller's rbp at CFA - 16, below rsp.
 * ep_tail (assembly) pushes and pops rbp, overwrites the popped slot (its
 * own red zone), then spins; its caller ep_caller keeps a frame pointer,
 * so a walk that took rbp from the red zone would lose ep_caller's
 * caller.  Prints "spun SECONDS" and exits 0.  The test expects nearly
 * every sample in ep_tail complete through ep_caller to main (dwarf mode).
 *
 * usage: epilogue [SECONDS]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

/* ep_tail(n): about n iterations of a dependent loop after the pop. */
__asm__(".text\n"
        ".globl ep_tail\n"
        ".type ep_tail, @function\n"
        "ep_tail:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset 6, -16\n"
        "movq %rsp, %rbp\n"
        ".cfi_def_cfa_register 6\n"
        "popq %rbp\n"
        ".cfi_def_cfa 7, 8\n"
        "movq $0x1234567, -8(%rsp)\n"
        "1: decq %rdi\n"
        "jnz 1b\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size ep_tail, .-ep_tail\n");

void ep_tail(uint64_t n);

NOINLINE void ep_caller(uint64_t n) {
    ep_tail(n);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        ep_caller(10000000);
    printf("spun %f\n", thread_cpu_seconds() - start);
    return 0;
}
