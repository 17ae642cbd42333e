// The agent's DWARF unwinder (its own CFI tables, no libunwind): from a
// context taken 40 calls deep, the walk names every caller, in order, back
// to the process's first frame, on code built without frame pointers.
#include "cfi.h"
#include "state.h"
#include "unwind.h"

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

namespace {

struct Walk {
    uint64_t frames[256];
    int n = 0;
    bool complete = false;
};

void stack_bounds(uintptr_t *lo, uintptr_t *hi) {
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    void *addr;
    size_t size;
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    *lo = reinterpret_cast<uintptr_t>(addr);
    *hi = *lo + size;
}

std::string name_of(uint64_t pc) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(pc), &info) == 0 || info.dli_sname == nullptr)
        return "?";
    return info.dli_sname;
}

} // namespace

extern "C" __attribute__((noinline)) void unwind_leaf(Walk *w) {
    ucontext_t uc;
    getcontext(&uc);
    uintptr_t lo, hi;
    stack_bounds(&lo, &hi);
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
    EXPECT_EQ(name_of(w.frames[0]), "unwind_leaf");
    for (int i = 1; i <= 41; ++i)
        EXPECT_EQ(name_of(w.frames[i]), "unwind_recurse") << "frame " << i;
    bool saw_main = false;
    for (int i = 42; i < w.n; ++i)
        saw_main = saw_main || name_of(w.frames[i]) == "main";
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
