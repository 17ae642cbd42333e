// SPDX-License-Identifier: MIT
// The DWARF walk through a signal frame: from inside a handler, past
// glibc's __restore_rt (its CIE has the "S" augmentation) to the context
// the signal interrupted, which is looked up at its own PC, not PC - 1.
// The interrupted instruction is the first of its function, so PC - 1
// lies in the function before it, whose rules would give a wrong CFA.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/state.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstring>
#include <string>

using namespace cpcprof::agent;

namespace {

unwindtest::Walk g_sig;

} // namespace

// sig_prev ends with CFA = rsp + 16, right before sig_first, whose first
// instruction (ud2) raises SIGILL with CFA = rsp + 8.
asm(R"(
    .text
    .globl sig_prev, sig_first
    .type sig_prev, @function
sig_prev:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    nop
    .cfi_endproc
    .size sig_prev, .-sig_prev
    .type sig_first, @function
sig_first:
    .cfi_startproc
    ud2
    ret
    .cfi_endproc
    .size sig_first, .-sig_first
)");

// A signal trampoline with glibc's code but no unwind table of its own.
asm(R"(
    .text
    .globl fake_restorer
    nop
fake_restorer:
    movq $15, %rax
    syscall
    hlt
)");

extern "C" void sig_first();
extern "C" void fake_restorer();

extern "C" __attribute__((noinline)) void sig_driver() {
    sig_first();
    asm volatile("" ::: "memory"); // not a tail call
}

extern "C" __attribute__((noinline)) void sig_handler(int, siginfo_t *, void *ucv) {
    ucontext_t here;
    getcontext(&here);
    g_sig.n = unwind_dwarf(&here, g_sig.lo, g_sig.hi, g_sig.frames, 256, &g_sig.complete);
    static_cast<ucontext_t *>(ucv)->uc_mcontext.gregs[REG_RIP] += 2; // past ud2
}

TEST(UnwindSignal, WalkGoesFromTheHandlerToTheInterruptedCode) {
    refresh_cfi();
    unwindtest::thread_stack(&g_sig.lo, &g_sig.hi);
    ASSERT_NE(g_sig.hi, 0u);

    ASSERT_TRUE(unwindtest::with_sigill(sig_handler, [&] { sig_driver(); }));

    std::string names;
    for (int i = 0; i < g_sig.n; ++i)
        names += unwindtest::symbol_at(g_sig.frames[i]) + " ";
    ASSERT_GE(g_sig.n, 5) << names;
    EXPECT_EQ(unwindtest::symbol_at(g_sig.frames[0]), "sig_handler") << names;
    // __restore_rt is a local symbol (dladdr cannot name it): its code,
    // mov $15, %rax; syscall (rt_sigreturn).
    const unsigned char restore_rt[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
    EXPECT_EQ(
        std::memcmp(reinterpret_cast<const void *>(g_sig.frames[1]), restore_rt, sizeof restore_rt),
        0)
        << names;
    EXPECT_EQ(g_sig.frames[2], reinterpret_cast<uintptr_t>(&sig_first)) << names;
    EXPECT_EQ(unwindtest::symbol_at(g_sig.frames[3]), "sig_driver") << names;
    bool saw_main = false;
    for (int i = 4; i < g_sig.n; ++i)
        saw_main = saw_main || unwindtest::symbol_at(g_sig.frames[i]) == "main";
    EXPECT_TRUE(saw_main) << names;
    EXPECT_TRUE(g_sig.complete) << "the walk did not reach _start: " << names;
}

namespace {

// The kernel's struct sigaction on x86-64 (rt_sigaction).
struct KernelSigaction {
    void (*handler)(int, siginfo_t *, void *);
    unsigned long flags;
    void (*restorer)();
    uint64_t mask;
};
constexpr unsigned long kSaRestorer = 0x04000000;

} // namespace

// Without an "S" row, the trampoline is known by its code (in libc's
// range, which the test points at it).
TEST(UnwindSignal, TrampolineKnownByItsCode) {
    refresh_cfi();
    State &st = state();
    uintptr_t saved_lo = st.libc_lo, saved_hi = st.libc_hi;
    st.libc_lo = reinterpret_cast<uintptr_t>(&fake_restorer);
    st.libc_hi = st.libc_lo + 16;
    g_sig = unwindtest::Walk{};
    unwindtest::thread_stack(&g_sig.lo, &g_sig.hi);
    ASSERT_NE(g_sig.hi, 0u);

    KernelSigaction ksa{sig_handler, SA_SIGINFO | kSaRestorer, fake_restorer, 0}, old{};
    ASSERT_EQ(syscall(SYS_rt_sigaction, SIGILL, &ksa, &old, 8), 0);
    sig_driver();
    syscall(SYS_rt_sigaction, SIGILL, &old, nullptr, 8);
    st.libc_lo = saved_lo, st.libc_hi = saved_hi;

    std::string names;
    for (int i = 0; i < g_sig.n; ++i)
        names += unwindtest::symbol_at(g_sig.frames[i]) + " ";
    ASSERT_GE(g_sig.n, 5) << names;
    EXPECT_EQ(unwindtest::symbol_at(g_sig.frames[0]), "sig_handler") << names;
    EXPECT_EQ(g_sig.frames[1], reinterpret_cast<uintptr_t>(&fake_restorer)) << names;
    EXPECT_EQ(g_sig.frames[2], reinterpret_cast<uintptr_t>(&sig_first)) << names;
    EXPECT_EQ(unwindtest::symbol_at(g_sig.frames[3]), "sig_driver") << names;
    EXPECT_TRUE(g_sig.complete) << "the walk did not reach _start: " << names;
}
