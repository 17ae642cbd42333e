// SPDX-License-Identifier: MIT
// A library loaded where an unloaded one was gets its own unwind rows,
// not the unloaded one's: the two generated libraries have the same
// layout, and gen_stop's frame is 32 bytes in one, 16 in the other.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <signal.h>
#include <ucontext.h>

using namespace cpcprof::agent;

namespace {

unwindtest::Walk g_reload;

void on_sigill(int, siginfo_t *, void *ucv) {
    auto *uc = static_cast<ucontext_t *>(ucv);
    g_reload.n =
        unwind_dwarf(uc, g_reload.lo, g_reload.hi, g_reload.frames, 256, &g_reload.complete);
    uc->uc_mcontext.gregs[REG_RIP] += 2; // past ud2
}

uintptr_t base_of(void *fn) {
    Dl_info info;
    return dladdr(fn, &info) != 0 ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0;
}

} // namespace

extern "C" __attribute__((noinline)) void reload_driver(void (*fn)()) {
    fn();
    asm volatile("" ::: "memory"); // not a tail call
}

TEST(UnwindReload, ALibraryAtAnUnloadedOnesAddressGetsItsOwnRows) {
    void *a = dlopen(GEN_LIB_A, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(a, nullptr) << dlerror();
    uintptr_t base_a = base_of(dlsym(a, "gen_stop"));
    refresh_cfi(); // the rows of gen_a, as the drain thread makes them
    ASSERT_EQ(dlclose(a), 0);

    void *b = dlopen(GEN_LIB_B, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(b, nullptr) << dlerror();
    auto *stop = reinterpret_cast<void (*)()>(dlsym(b, "gen_stop"));
    ASSERT_NE(stop, nullptr);
    if (base_of(reinterpret_cast<void *>(stop)) != base_a) {
        dlclose(b);
        GTEST_SKIP() << "the second library was loaded elsewhere; nothing to judge";
    }
    refresh_cfi();

    unwindtest::thread_stack(&g_reload.lo, &g_reload.hi);
    ASSERT_TRUE(unwindtest::with_sigill(on_sigill, [&] { reload_driver(stop); }));
    dlclose(b);

    ASSERT_GE(g_reload.n, 2);
    EXPECT_EQ(unwindtest::symbol_at(g_reload.frames[1]), "reload_driver")
        << "the walk used the unloaded library's rows";
    EXPECT_TRUE(g_reload.complete) << "the walk did not reach _start";
}
