// SPDX-License-Identifier: MIT
// The DWARF walk through frames whose rules are more than rsp/rbp plus an
// offset: a CFA in another register (OpenSSL's assembly keeps it in rax),
// a CFA loaded from the stack (OpenSSL's realigned frames, also from the
// red zone), GCC's stack realignment with a DRAP register, a caller whose
// CFA is a callee-saved register (glibc's _dl_runtime_resolve uses rbx),
// and code without any unwind rows that keeps frame pointers (JIT code).
// Each function stops on ud2; the SIGILL handler walks from there.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cstring>
#include <string>
#include <vector>

using namespace cpcprof::agent;

namespace {

constexpr int kMaxStops = 4;
unwindtest::Walk g_walks[kMaxStops];
int g_stops = 0;

void on_sigill(int, siginfo_t *, void *ucv) {
    auto *uc = static_cast<ucontext_t *>(ucv);
    if (g_stops < kMaxStops) {
        unwindtest::Walk &w = g_walks[g_stops++];
        w.pc = uc->uc_mcontext.gregs[REG_RIP];
        w.n = unwind_dwarf(uc, w.lo, w.hi, w.frames, 256, &w.complete);
    }
    uc->uc_mcontext.gregs[REG_RIP] += 2; // past ud2
}

// Runs fn with the SIGILL handler in place; the walks land in g_walks.
void with_stops(void (*fn)()) {
    refresh_cfi();
    g_stops = 0;
    for (unwindtest::Walk &w : g_walks) {
        w = unwindtest::Walk{};
        unwindtest::thread_stack(&w.lo, &w.hi);
    }
    ASSERT_TRUE(unwindtest::with_sigill(on_sigill, [&] { fn(); }));
}

// The walk's function names from the leaf up to the driver, and whether
// main follows and the walk is complete.
std::vector<std::string> names(const unwindtest::Walk &w, int count) {
    std::vector<std::string> out;
    for (int i = 0; i < w.n && i < count; ++i)
        out.push_back(unwindtest::symbol_at(w.frames[i]));
    return out;
}

bool reaches_main(const unwindtest::Walk &w) {
    for (int i = 0; i < w.n; ++i)
        if (unwindtest::symbol_at(w.frames[i]) == "main")
            return true;
    return false;
}

} // namespace

asm(R"(
    .text
    .globl rules_rax_leaf, rules_drap, rules_drap_inner, rules_rbx_caller, rules_rbx_inner
    .globl rules_jit_leaf

# OpenSSL's pattern: the CFA moves to rax, then rsp is realigned and the
# caller's rsp kept at -8(%rsp) (the red zone) or in the frame.  rax is
# clobbered before the second stop, so only the expression finds the CFA.
    .type rules_rax_leaf, @function
rules_rax_leaf:
    .cfi_startproc
    movq %rsp, %rax
    .cfi_def_cfa_register 0
    subq $24, %rsp
    ud2
    andq $-64, %rsp
    movq %rax, -8(%rsp)
    # DW_CFA_def_cfa_expression: DW_OP_breg7 -8, DW_OP_deref, DW_OP_plus_uconst 8
    .cfi_escape 0x0f, 0x05, 0x77, 0x78, 0x06, 0x23, 0x08
    xorl %eax, %eax
    ud2
    movq -8(%rsp), %rax
    subq $64, %rsp
    movq %rax, 24(%rsp)
    # DW_OP_breg7 24, DW_OP_deref, DW_OP_plus_uconst 8
    .cfi_escape 0x0f, 0x05, 0x77, 0x18, 0x06, 0x23, 0x08
    xorl %eax, %eax
    ud2
    movq 24(%rsp), %rsp
    .cfi_def_cfa 7, 8
    ret
    .cfi_endproc
    .size rules_rax_leaf, .-rules_rax_leaf

# GCC's DRAP: r10 holds the CFA while rsp is realigned; then the CFA is
# loaded from below rbp and the callee-saved registers are saved
# relative to rbp.  The stop is in the callee, which clobbers rbx and rbp
# after saving them: the walk must restore them to leave the DRAP frame.
    .type rules_drap, @function
rules_drap:
    .cfi_startproc
    leaq 8(%rsp), %r10
    .cfi_def_cfa 10, 0
    andq $-32, %rsp
    pushq -8(%r10)
    pushq %rbp
    movq %rsp, %rbp
    # DW_CFA_expression rbp: DW_OP_breg6 0
    .cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
    pushq %r10
    # DW_CFA_def_cfa_expression: DW_OP_breg6 -8, DW_OP_deref
    .cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
    pushq %rbx
    # DW_CFA_expression rbx: DW_OP_breg6 -16
    .cfi_escape 0x10, 0x03, 0x02, 0x76, 0x70
    subq $40, %rsp
    call rules_drap_inner
    leaq -16(%rbp), %rsp
    popq %rbx
    popq %r10
    .cfi_def_cfa 10, 0
    popq %rbp
    leaq -8(%r10), %rsp
    .cfi_def_cfa 7, 8
    ret
    .cfi_endproc
    .size rules_drap, .-rules_drap

    .type rules_drap_inner, @function
rules_drap_inner:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset 6, -16
    pushq %rbx
    .cfi_def_cfa_offset 24
    .cfi_offset 3, -24
    xorl %ebp, %ebp
    xorl %ebx, %ebx
    ud2
    popq %rbx
    .cfi_def_cfa_offset 16
    popq %rbp
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size rules_drap_inner, .-rules_drap_inner

# _dl_runtime_resolve's pattern: the CFA is rbx + 16 across a call; the
# callee saves rbx and clobbers it.
    .type rules_rbx_caller, @function
rules_rbx_caller:
    .cfi_startproc
    pushq %rbx
    .cfi_def_cfa_offset 16
    .cfi_offset 3, -16
    movq %rsp, %rbx
    .cfi_def_cfa_register 3
    andq $-64, %rsp
    call rules_rbx_inner
    movq %rbx, %rsp
    .cfi_def_cfa_register 7
    popq %rbx
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size rules_rbx_caller, .-rules_rbx_caller

    .type rules_rbx_inner, @function
rules_rbx_inner:
    .cfi_startproc
    pushq %rbx
    .cfi_def_cfa_offset 16
    .cfi_offset 3, -16
    movq $-1, %rbx
    ud2
    popq %rbx
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size rules_rbx_inner, .-rules_rbx_inner

# Without unwind information but with a frame pointer (as V8's builtins
# are, inside node's own text): calls the function in rdi.
    .globl rules_nocfi_fp
    .type rules_nocfi_fp, @function
rules_nocfi_fp:
    pushq %rbp
    movq %rsp, %rbp
    call *%rdi
    popq %rbp
    ret
    .size rules_nocfi_fp, .-rules_nocfi_fp

# Called from code without unwind rows; leaves rbp alone.
    .type rules_jit_leaf, @function
rules_jit_leaf:
    .cfi_startproc
    subq $8, %rsp
    .cfi_def_cfa_offset 16
    ud2
    addq $8, %rsp
    .cfi_def_cfa_offset 8
    ret
    .cfi_endproc
    .size rules_jit_leaf, .-rules_jit_leaf
)");

extern "C" void rules_rax_leaf();
extern "C" void rules_drap();
extern "C" void rules_rbx_caller();
extern "C" void rules_jit_leaf();

extern "C" __attribute__((noinline)) void rules_rax_driver() {
    rules_rax_leaf();
    asm volatile("" ::: "memory"); // not a tail call
}

extern "C" __attribute__((noinline)) void rules_drap_driver() {
    rules_drap();
    asm volatile("" ::: "memory");
}

extern "C" __attribute__((noinline)) void rules_rbx_driver() {
    rules_rbx_caller();
    asm volatile("" ::: "memory");
}

extern "C" void rules_nocfi_fp(void (*)());

extern "C" __attribute__((noinline)) void rules_nocfi_driver() {
    rules_nocfi_fp(rules_jit_leaf);
    asm volatile("" ::: "memory");
}

namespace {

void (*g_jit)(void (*)()) = nullptr;

} // namespace

extern "C" __attribute__((noinline)) void rules_jit_driver() {
    g_jit(rules_jit_leaf);
    asm volatile("" ::: "memory");
}

TEST(UnwindRules, CfaInRaxThenLoadedFromTheRedZoneAndTheFrame) {
    with_stops(rules_rax_driver);
    ASSERT_EQ(g_stops, 3);
    for (int i = 0; i < 3; ++i) {
        SCOPED_TRACE(i);
        const unwindtest::Walk &w = g_walks[i];
        EXPECT_EQ(names(w, 2), (std::vector<std::string>{"rules_rax_leaf", "rules_rax_driver"}));
        EXPECT_TRUE(reaches_main(w));
        EXPECT_TRUE(w.complete) << "the walk did not reach _start";
    }
}

TEST(UnwindRules, DrapFrameWithCalleeSavedRegistersRelativeToRbp) {
    with_stops(rules_drap_driver);
    ASSERT_EQ(g_stops, 1);
    const unwindtest::Walk &w = g_walks[0];
    EXPECT_EQ(names(w, 3),
              (std::vector<std::string>{"rules_drap_inner", "rules_drap", "rules_drap_driver"}));
    EXPECT_TRUE(reaches_main(w));
    EXPECT_TRUE(w.complete) << "the walk did not reach _start";
}

TEST(UnwindRules, CallerWithItsCfaInACalleeSavedRegister) {
    with_stops(rules_rbx_driver);
    ASSERT_EQ(g_stops, 1);
    const unwindtest::Walk &w = g_walks[0];
    EXPECT_EQ(names(w, 3), (std::vector<std::string>{"rules_rbx_inner", "rules_rbx_caller",
                                                     "rules_rbx_driver"}));
    EXPECT_TRUE(reaches_main(w));
    EXPECT_TRUE(w.complete) << "the walk did not reach _start";
}

TEST(UnwindRules, CodeWithoutRowsIsLeftByItsFramePointer) {
    // push %rbp; mov %rsp, %rbp; call *%rdi; pop %rbp; ret -- in anonymous
    // memory, where no module and no unwind row is.
    static const unsigned char code[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3};
    void *mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    std::memcpy(mem, code, sizeof code);
    ASSERT_EQ(mprotect(mem, 4096, PROT_READ | PROT_EXEC), 0);
    g_jit = reinterpret_cast<void (*)(void (*)())>(mem);
    with_stops(rules_jit_driver);
    munmap(mem, 4096);
    ASSERT_EQ(g_stops, 1);
    const unwindtest::Walk &w = g_walks[0];
    ASSERT_GE(w.n, 3);
    EXPECT_EQ(unwindtest::symbol_at(w.frames[0]), "rules_jit_leaf");
    auto at = reinterpret_cast<uintptr_t>(mem);
    EXPECT_EQ(w.frames[1], at + 6) << "the return address inside the generated code";
    EXPECT_EQ(unwindtest::symbol_at(w.frames[2]), "rules_jit_driver");
    EXPECT_TRUE(reaches_main(w));
    EXPECT_TRUE(w.complete) << "the walk did not reach _start";
}

TEST(UnwindRules, CodeNoFdeCoversIsLeftByItsFramePointer) {
    // Between the functions of a module that has unwind rows.
    with_stops(rules_nocfi_driver);
    ASSERT_EQ(g_stops, 1);
    const unwindtest::Walk &w = g_walks[0];
    EXPECT_EQ(names(w, 3),
              (std::vector<std::string>{"rules_jit_leaf", "rules_nocfi_fp", "rules_nocfi_driver"}));
    EXPECT_TRUE(reaches_main(w));
    EXPECT_TRUE(w.complete) << "the walk did not reach _start";
}
