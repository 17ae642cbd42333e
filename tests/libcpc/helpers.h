// Shared helpers for the libcpc tests.
#pragma once

#include <libcpc.h>

#include "libcpc/src/machine.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace cpctest {

// Faults in n fresh pages: n page-faults of the calling thread.  Not
// instrumented: AddressSanitizer's shadow memory would fault pages too.
__attribute__((noinline, no_sanitize_address)) inline void touch_pages(size_t n) {
    size_t len = n * 4096;
    auto *p = static_cast<volatile char *>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    for (size_t i = 0; i < n; ++i)
        p[i * 4096] = 1;
    munmap(const_cast<char *>(p), len);
}

// Spins until the calling thread has used ms of CPU time, reading its CPU
// clock (a system call) every between_reads additions.
__attribute__((noinline)) inline void spin_cpu_ms(int ms, int between_reads = 1000) {
    timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < between_reads; ++i)
            x = x + i;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

// Records what libcpc reports through cpc_seterrhndlr.
struct ErrorLog {
    static inline std::vector<int> subcodes;
    static inline std::vector<std::string> functions;
    static inline std::vector<std::string> messages;
    static void handler(const char *fn, int subcode, const char *fmt, va_list ap) {
        char buf[1024];
        vsnprintf(buf, sizeof buf, fmt, ap);
        subcodes.push_back(subcode);
        functions.push_back(fn);
        messages.push_back(buf);
    }
    static void clear() {
        subcodes.clear();
        functions.clear();
        messages.clear();
    }
    static int last() { return subcodes.empty() ? 0 : subcodes.back(); }
};

// Runs fn in a forked child; returns its exit status (or 128+signal).
inline int in_child(const std::function<int()> &fn) {
    fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

// Number of perf_event descriptors this process holds.
inline int perf_fds() {
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    while (dirent *e = readdir(d)) {
        char path[300], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = '\0';
            if (std::string(target).find("perf_event") != std::string::npos)
                ++n;
        }
    }
    closedir(d);
    return n;
}

// Whether this machine has a hardware PMU (perf can open "cycles").
inline bool has_hardware_pmu() {
    return cpc::host_machine().hw_pmu;
}

} // namespace cpctest

// Skips a test that needs hardware counters, saying why.
#define SKIP_WITHOUT_PMU()                                                                         \
    do {                                                                                           \
        if (!cpctest::has_hardware_pmu())                                                          \
            GTEST_SKIP() << "no hardware PMU on this machine (perf_event_open of cycles "          \
                            "fails): hardware-counter behaviour cannot be checked here";           \
    } while (0)
