// SPDX-License-Identifier: MIT
/* One of two libraries with the same layout and different unwind rows
 * (test_unwind_reload.cpp): gen_stop's frame is 16 bytes here, its code
 * as long as gen_a.c's, so ud2 and the unwind table header lie where
 * gen_a.c's do. */
__asm__(".text\n"
        ".globl gen_stop\n"
        ".type gen_stop, @function\n"
        "gen_stop:\n"
        ".cfi_startproc\n"
        "pushq %rbx\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset 3, -16\n"
        "nop\n"
        "nop\n"
        "nop\n"
        "ud2\n"
        "nop\n"
        "nop\n"
        "nop\n"
        "popq %rbx\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size gen_stop, .-gen_stop\n");
