// SPDX-License-Identifier: MIT
// What the unwinder tests share: a walk's result, the calling thread's
// stack bounds, and the symbol at a PC.
#pragma once

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <cstdint>
#include <string>

namespace unwindtest {

struct Walk {
    uint64_t frames[256];
    int n = 0;
    bool complete = false;
    uintptr_t lo = 0, hi = 0; // the stack the walk may read
    uint64_t pc = 0;          // where the walk started, when a test keeps it
};

// The calling thread's stack, [*lo, *hi).
inline void thread_stack(uintptr_t *lo, uintptr_t *hi) {
    pthread_attr_t attr;
    *lo = *hi = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    void *addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    *lo = reinterpret_cast<uintptr_t>(addr);
    *hi = *lo + size;
}

// The dynamic symbol at pc, "?" when there is none.
inline std::string symbol_at(uint64_t pc) {
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(pc), &info) == 0 || info.dli_sname == nullptr)
        return "?";
    return info.dli_sname;
}

// Runs body with handler as the SIGILL handler (the tests stop on ud2),
// then puts the old disposition back; false when it could not be set.
template <class Body> bool with_sigill(void (*handler)(int, siginfo_t *, void *), Body body) {
    struct sigaction sa {
    }, old{};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGILL, &sa, &old) != 0)
        return false;
    body();
    sigaction(SIGILL, &old, nullptr);
    return true;
}

} // namespace unwindtest
