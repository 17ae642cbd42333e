// SPDX-License-Identifier: MIT
/* One of two libraries with the same layout and different unwind rows
 * (test_unwind_reload.cpp): gen_stop's frame is 32 bytes here. */
__asm__(".text\n"
        ".globl gen_stop\n"
        ".type gen_stop, @function\n"
        "gen_stop:\n"
        ".cfi_startproc\n"
        "subq $24, %rsp\n"
        ".cfi_def_cfa_offset 32\n"
        "ud2\n"
        "addq $24, %rsp\n"
        ".cfi_def_cfa_offset 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size gen_stop, .-gen_stop\n");
