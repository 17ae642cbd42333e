// SPDX-License-Identifier: MIT
// The DWARF walk from a PC right after `pop %rbp`: the CFI still says the
// caller's rbp is saved at CFA - 16, just below rsp (the red zone), but
// the register already holds it.  The walk must neither stop there nor
// read the red zone: the test overwrites that slot, and its caller finds
// its CFA from rbp.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <ucontext.h>

#include <string>

using namespace cpcprof::agent;

namespace {

unwindtest::Walk g_walk;

} // namespace

// epi_outer: an rbp frame (CFA = rbp + 16) that calls epi_inner.
// epi_inner: pushes rbp, pops it, and at epi_after_pop scribbles over the
// popped slot (its own red zone) and stops on ud2 (SIGILL).
asm(R"(
    .text
    .globl epi_outer, epi_inner, epi_after_pop
    .type epi_outer, @function
epi_outer:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset 6, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register 6
    subq $32, %rsp
    call epi_inner
    leave
    .cfi_def_cfa 7, 8
    ret
    .cfi_endproc
    .size epi_outer, .-epi_outer
    .type epi_inner, @function
epi_inner:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset 6, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register 6
    popq %rbp
    .cfi_def_cfa 7, 8
epi_after_pop:
    movq $0x1234567, -8(%rsp)
    ud2
    ret
    .cfi_endproc
    .size epi_inner, .-epi_inner
)");

extern "C" void epi_outer();
extern "C" char epi_after_pop[];

extern "C" __attribute__((noinline)) void epi_driver() {
    epi_outer();
    asm volatile("" ::: "memory"); // not a tail call
}

namespace {

void on_sigill(int, siginfo_t *, void *ucv) {
    auto *uc = static_cast<ucontext_t *>(ucv);
    g_walk.pc = uc->uc_mcontext.gregs[REG_RIP];
    g_walk.n = unwind_dwarf(uc, g_walk.lo, g_walk.hi, g_walk.frames, 256, &g_walk.complete);
    uc->uc_mcontext.gregs[REG_RIP] += 2; // past ud2, to the ret
}

} // namespace

TEST(UnwindEpilogue, AfterPopRbpTheWalkGoesOnWithTheRegister) {
    refresh_cfi();
    unwindtest::thread_stack(&g_walk.lo, &g_walk.hi);
    ASSERT_NE(g_walk.hi, 0u);

    ASSERT_TRUE(unwindtest::with_sigill(on_sigill, [&] { epi_driver(); }));

    // The ud2 is 9 bytes (the movq) after epi_after_pop.
    ASSERT_EQ(g_walk.pc, reinterpret_cast<uintptr_t>(epi_after_pop) + 9);
    ASSERT_GE(g_walk.n, 4) << "the walk stopped in the epilogue";
    EXPECT_EQ(unwindtest::symbol_at(g_walk.frames[0]), "epi_inner");
    EXPECT_EQ(unwindtest::symbol_at(g_walk.frames[1]), "epi_outer");
    EXPECT_EQ(unwindtest::symbol_at(g_walk.frames[2]), "epi_driver");
    bool saw_main = false;
    for (int i = 3; i < g_walk.n; ++i)
        saw_main = saw_main || unwindtest::symbol_at(g_walk.frames[i]) == "main";
    EXPECT_TRUE(saw_main);
    EXPECT_TRUE(g_walk.complete) << "the walk did not reach _start";
}
