// SPDX-License-Identifier: MIT
// The profiler's own frames (the agent's and libcpc's code, State::own_*)
// are left out of a walk's frames, and the walk goes on through them.
// Here unwind_recurse (test_unwind.cpp) stands for the profiler's code.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/state.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <ucontext.h>

#include <string>

using namespace cpcprof::agent;

namespace {

unwindtest::Walk g_own;

} // namespace

extern "C" __attribute__((noinline)) void own_leaf() {
    ucontext_t uc;
    getcontext(&uc);
    uintptr_t lo, hi;
    unwindtest::thread_stack(&lo, &hi);
    g_own.n = unwind_dwarf(&uc, lo, hi, g_own.frames, 256, &g_own.complete);
}

extern "C" __attribute__((noinline)) int own_middle(int depth) {
    if (depth == 0)
        own_leaf();
    else
        own_middle(depth - 1);
    return depth; // not a tail call
}

extern "C" __attribute__((noinline)) void own_outer() {
    own_middle(3);
    asm volatile("" ::: "memory");
}

TEST(UnwindOwnFrames, LeftOutAndWalkedThrough) {
    refresh_cfi();
    Dl_info info;
    void *sym_v = nullptr;
    ASSERT_NE(dladdr1(reinterpret_cast<void *>(&own_middle), &info, &sym_v, RTLD_DL_SYMENT), 0);
    const auto *sym = static_cast<const ElfW(Sym) *>(sym_v);
    ASSERT_NE(sym, nullptr);
    ASSERT_GT(sym->st_size, 0u);
    State &st = state();
    st.own_lo[1] = reinterpret_cast<uintptr_t>(info.dli_saddr);
    st.own_hi[1] = st.own_lo[1] + sym->st_size;
    own_outer();
    st.own_lo[1] = st.own_hi[1] = 0;

    std::string names;
    for (int i = 0; i < g_own.n; ++i)
        names += unwindtest::symbol_at(g_own.frames[i]) + " ";
    ASSERT_GE(g_own.n, 3) << names;
    EXPECT_EQ(unwindtest::symbol_at(g_own.frames[0]), "own_leaf") << names;
    EXPECT_EQ(unwindtest::symbol_at(g_own.frames[1]), "own_outer") << names;
    EXPECT_EQ(names.find("own_middle"), std::string::npos) << names;
    EXPECT_NE(names.find("main"), std::string::npos) << names;
    EXPECT_TRUE(g_own.complete) << names;
}
