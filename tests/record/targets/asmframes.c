// SPDX-License-Identifier: MIT
/*
 * asmframes: spends its CPU time in frames whose unwind rules are more
 * than rsp or rbp plus an offset, as hand-written assembly and stack
 * realignment produce them:
 *   af_realigned  OpenSSL's pattern: the CFA first in rax, then rsp
 *                 realigned and the caller's rsp kept in the frame
 *                 (DW_CFA_def_cfa_expression: breg7 N, deref, plus_uconst 8),
 *                 also at -8(%rsp), its red zone;
 *   af_drap       GCC's DRAP: r10 holds the CFA while rsp is realigned,
 *                 then the CFA is loaded from below rbp and rbx is saved
 *                 relative to rbp; it calls af_spin, which clobbers rbx
 *                 and rbp after saving them.
 * Alternates between the two for SECONDS of CPU time, prints
 * "spun SECONDS" and exits 0.  The test expects nearly every sample in
 * them complete through af_loop to main (dwarf mode).
 *
 * usage: asmframes [SECONDS]   (CPU seconds, default 1)
 */
#define _GNU_SOURCE
#include "tests/record/targets/target_util.h"

__asm__(".text\n"
        ".globl af_realigned, af_drap, af_spin\n"

        /* af_realigned(n): n iterations with the CFA in rax, n loaded from
           the red zone, n loaded from the frame. */
        ".type af_realigned, @function\n"
        "af_realigned:\n"
        ".cfi_startproc\n"
        "movq %rsp, %rax\n"
        ".cfi_def_cfa_register 0\n"
        "subq $24, %rsp\n"
        "movq %rdi, %rcx\n"
        "1: decq %rcx\n"
        "jnz 1b\n"
        "andq $-64, %rsp\n"
        "movq %rax, -8(%rsp)\n"
        ".cfi_escape 0x0f, 0x05, 0x77, 0x78, 0x06, 0x23, 0x08\n"
        "xorl %eax, %eax\n"
        "movq %rdi, %rcx\n"
        "2: decq %rcx\n"
        "jnz 2b\n"
        "movq -8(%rsp), %rax\n"
        "subq $64, %rsp\n"
        "movq %rax, 24(%rsp)\n"
        ".cfi_escape 0x0f, 0x05, 0x77, 0x18, 0x06, 0x23, 0x08\n"
        "xorl %eax, %eax\n"
        "movq %rdi, %rcx\n"
        "3: decq %rcx\n"
        "jnz 3b\n"
        "movq 24(%rsp), %rsp\n"
        ".cfi_def_cfa 7, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size af_realigned, .-af_realigned\n"

        /* af_drap(n): a DRAP frame that calls af_spin(n). */
        ".type af_drap, @function\n"
        "af_drap:\n"
        ".cfi_startproc\n"
        "leaq 8(%rsp), %r10\n"
        ".cfi_def_cfa 10, 0\n"
        "andq $-32, %rsp\n"
        "pushq -8(%r10)\n"
        "pushq %rbp\n"
        "movq %rsp, %rbp\n"
        ".cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00\n"
        "pushq %r10\n"
        ".cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06\n"
        "pushq %rbx\n"
        ".cfi_escape 0x10, 0x03, 0x02, 0x76, 0x70\n"
        "subq $40, %rsp\n"
        "call af_spin\n"
        "leaq -16(%rbp), %rsp\n"
        "popq %rbx\n"
        "popq %r10\n"
        ".cfi_def_cfa 10, 0\n"
        "popq %rbp\n"
        "leaq -8(%r10), %rsp\n"
        ".cfi_def_cfa 7, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size af_drap, .-af_drap\n"

        /* af_spin(n): saves rbx and rbp, clobbers them, spins. */
        ".type af_spin, @function\n"
        "af_spin:\n"
        ".cfi_startproc\n"
        "pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset 6, -16\n"
        "pushq %rbx\n"
        ".cfi_def_cfa_offset 24\n"
        ".cfi_offset 3, -24\n"
        "xorl %ebp, %ebp\n"
        "movq %rdi, %rbx\n"
        "1: decq %rbx\n"
        "jnz 1b\n"
        "popq %rbx\n"
        ".cfi_def_cfa_offset 16\n"
        "popq %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size af_spin, .-af_spin\n");

void af_realigned(uint64_t n);
void af_drap(uint64_t n);

NOINLINE void af_loop(uint64_t n) {
    af_realigned(n);
    af_drap(3 * n);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double start = thread_cpu_seconds();
    while (thread_cpu_seconds() - start < seconds)
        af_loop(3000000);
    printf("spun %f\n", thread_cpu_seconds() - start);
    return 0;
}
