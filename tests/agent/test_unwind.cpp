// SPDX-License-Identifier: MIT
// The agent's DWARF unwinder (its own CFI tables, no libunwind): from a
// context taken 40 calls deep, the walk names every caller, in order, back
// to the process's first frame, on code built without frame pointers.
#include "profiler/agent/cfi.h"
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/state.h"
#include "profiler/agent/unwind.h"
#include "tests/agent/unwind_test_util.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <pthread.h>
#include <ucontext.h>

#include <cstring>
#include <string>

namespace cpcprof::agent {
// unwind.cpp asks the agent's state for libc's range (frame-pointer walks).
State &state() {
    static State s;
    return s;
}
} // namespace cpcprof::agent

using namespace cpcprof::agent;
using unwindtest::Walk;

namespace {} // namespace

extern "C" __attribute__((noinline)) void unwind_leaf(Walk *w) {
    ucontext_t uc;
    getcontext(&uc);
    uintptr_t lo, hi;
    unwindtest::thread_stack(&lo, &hi);
    w->n = unwind_dwarf(&uc, lo, hi, w->frames, 256, &w->complete);
}

extern "C" __attribute__((noinline)) int unwind_recurse(int depth, Walk *w) {
    if (depth == 0)
        unwind_leaf(w);
    else
        unwind_recurse(depth - 1, w);
    return depth; // not a tail call
}

TEST(Unwind, FortyFramesDeepBackToTheFirstFrame) {
    refresh_cfi();
    Walk w;
    unwind_recurse(40, &w);
    ASSERT_GT(w.n, 42);
    EXPECT_TRUE(w.complete) << "the walk did not reach _start";
    EXPECT_EQ(unwindtest::symbol_at(w.frames[0]), "unwind_leaf");
    for (int i = 1; i <= 41; ++i)
        EXPECT_EQ(unwindtest::symbol_at(w.frames[i]), "unwind_recurse") << "frame " << i;
    bool saw_main = false;
    for (int i = 42; i < w.n; ++i)
        saw_main = saw_main || unwindtest::symbol_at(w.frames[i]) == "main";
    EXPECT_TRUE(saw_main);
}

TEST(Unwind, ThreadsEndAtTheirStartRoutineFrame) {
    refresh_cfi();
    Walk w;
    pthread_t t;
    pthread_create(
        &t, nullptr,
        [](void *p) -> void * {
            unwind_recurse(5, static_cast<Walk *>(p));
            return nullptr;
        },
        &w);
    pthread_join(t, nullptr);
    EXPECT_TRUE(w.complete) << "the walk did not reach clone3";
    EXPECT_GT(w.n, 7);
}

TEST(Unwind, UnknownCodeStopsTheWalk) {
    // No tables published for an address outside every module.
    uintptr_t bias = 0;
    EXPECT_EQ(find_cfi(16, &bias), nullptr);
}
