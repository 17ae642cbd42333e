// SPDX-License-Identifier: MIT
// The agent's DWARF walk against libunwind's on the same stack: 45 calls
// deep in code built without frame pointers, from a context taken at the
// bottom (getcontext), the cost of one walk to the first frame.  And the
// recorder's walk of a copy of that stack (record -p, --capture ring:
// the kernel copies the user registers and the top 16 KiB of the stack
// with each sample, and the recorder unwinds the copy with libunwind's
// remote mode, profiler/record/stack_unwind.h), warm as in a recording.
// Runs on demand:
//
//     build/dev/tests/bench/bench_unwind [ITERATIONS]
//
// libunwind is measured local (unw_backtrace), with its default global
// cache and with caching off (UNW_CACHE_NONE: what a signal handler may
// use without a cache filled in ordinary context, and still not
// signal-safe: a cache miss calls dl_iterate_phdr, which takes the
// loader's lock).  The agent's walk searches tables compiled beforehand
// and takes no lock.
#include "profiler/agent/cfi_tables.h"
#include "profiler/agent/state.h"
#include "profiler/agent/unwind.h"
#include "profiler/record/stack_unwind.h"

#include "profiler/agent/module_scan.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <pthread.h>
#include <time.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cpcprof::agent {
// unwind.cpp asks the agent's state for libc's range (frame-pointer walks).
State &state() {
    static State s;
    return s;
}
} // namespace cpcprof::agent

namespace {

constexpr int kDepth = 45;
int g_iterations = 20000;

uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

struct Figures {
    double median_ns, p99_ns;
    int frames;
};

Figures summarize(std::vector<uint64_t> &ns, int frames) {
    std::sort(ns.begin(), ns.end());
    return {double(ns[ns.size() / 2]), double(ns[ns.size() * 99 / 100]), frames};
}

void thread_stack(uintptr_t *lo, uintptr_t *hi) {
    pthread_attr_t attr;
    pthread_getattr_np(pthread_self(), &attr);
    void *addr = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    *lo = reinterpret_cast<uintptr_t>(addr);
    *hi = *lo + size;
}

Figures g_agent, g_unw_cached, g_unw_none, g_copied_rows, g_copied_unw;

// This process's executable mappings, for the copied-stack unwinder.
std::vector<cpcprof::record::CopiedStackUnwinder::Mapping> own_mappings() {
    std::ifstream in("/proc/self/maps");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<cpcprof::record::CopiedStackUnwinder::Mapping> maps;
    for (const cpcprof::agent::MapsLine &l : cpcprof::agent::parse_exec_maps(text.str()))
        if (l.path != "[vdso]")
            maps.push_back({l.start, l.end, l.file_offset, l.path});
    return maps;
}

// getcontext returns once here (nothing calls setcontext): no variable is
// clobbered by a second return.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wclobbered"
// The recorder's walks of copies of this stack, as the ring gives them:
// AX..IP and R8..R15 (perf_regs bits 0-8, 16-23, lowest first) and the
// stack from SP up, at most 16 KiB.  rows: the compiled rows first (as
// recordings walk), else libunwind's remote mode alone.
Figures copied_walks(bool rows, uintptr_t hi, std::vector<uint64_t> &ns) {
    cpcprof::record::CopiedStackUnwinder copied;
    copied.set_method(rows ? cpcprof::record::CopiedStackUnwinder::Method::rows_then_libunwind
                           : cpcprof::record::CopiedStackUnwinder::Method::libunwind);
    copied.set_mappings(getpid(), own_mappings());
    const uint64_t mask = 0x1ffu | (0xffu << 16);
    std::vector<unsigned char> stack(16 * 1024);
    std::vector<uint64_t> walked;
    walked.reserve(256);
    bool complete = false;
    for (uint64_t &t : ns) {
        ucontext_t uc;
        getcontext(&uc);
        const greg_t *g = uc.uc_mcontext.gregs;
        uint64_t regs[17] = {uint64_t(g[REG_RAX]), uint64_t(g[REG_RBX]), uint64_t(g[REG_RCX]),
                             uint64_t(g[REG_RDX]), uint64_t(g[REG_RSI]), uint64_t(g[REG_RDI]),
                             uint64_t(g[REG_RBP]), uint64_t(g[REG_RSP]), uint64_t(g[REG_RIP]),
                             uint64_t(g[REG_R8]),  uint64_t(g[REG_R9]),  uint64_t(g[REG_R10]),
                             uint64_t(g[REG_R11]), uint64_t(g[REG_R12]), uint64_t(g[REG_R13]),
                             uint64_t(g[REG_R14]), uint64_t(g[REG_R15])};
        uintptr_t sp = uintptr_t(g[REG_RSP]);
        size_t size = std::min<size_t>(stack.size(), hi - sp);
        std::memcpy(stack.data(), reinterpret_cast<const void *>(sp), size);
        walked.clear();
        uint64_t t0 = now_ns();
        complete = copied.unwind(getpid(), regs, mask, stack.data(), size, 256, &walked);
        t = now_ns() - t0;
    }
    return summarize(ns, complete ? int(walked.size()) : -int(walked.size()));
}

__attribute__((noinline)) void measure() {
    uintptr_t lo, hi;
    thread_stack(&lo, &hi);
    std::vector<uint64_t> ns(static_cast<size_t>(g_iterations));
    uint64_t frames[256];
    bool complete = false;
    int n = 0;
    for (uint64_t &t : ns) {
        ucontext_t uc;
        getcontext(&uc);
        uint64_t t0 = now_ns();
        n = cpcprof::agent::unwind_dwarf(&uc, lo, hi, frames, 256, &complete);
        t = now_ns() - t0;
    }
    g_agent = summarize(ns, complete ? n : -n);

    void *buf[256];
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL);
    for (uint64_t &t : ns) {
        uint64_t t0 = now_ns();
        n = unw_backtrace(buf, 256);
        t = now_ns() - t0;
    }
    g_unw_cached = summarize(ns, n);

    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
    for (uint64_t &t : ns) {
        uint64_t t0 = now_ns();
        n = unw_backtrace(buf, 256);
        t = now_ns() - t0;
    }
    g_unw_none = summarize(ns, n);

    // The sample as the ring gives it: AX..IP and R8..R15 (perf_regs bits
    // 0-8, 16-23, lowest first) and the stack from SP up, at most 16 KiB.
    g_copied_rows = copied_walks(true, hi, ns);
    g_copied_unw = copied_walks(false, hi, ns);
}
#pragma GCC diagnostic pop

__attribute__((noinline)) int recurse(int depth) {
    if (depth == 0) {
        measure();
        return 0;
    }
    int r = recurse(depth - 1);
    asm volatile("" ::: "memory"); // not a tail call
    return r + 1;
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1)
        g_iterations = std::max(100, atoi(argv[1]));
    cpcprof::agent::refresh_cfi();
    recurse(kDepth);
    std::printf("one walk from %d calls deep (no frame pointers), %d walks each:\n", kDepth,
                g_iterations);
    std::printf("  %-34s %8s %8s %7s %s\n", "", "median", "p99", "frames", "ratio (median)");
    auto row = [](const char *name, const Figures &f) {
        std::printf("  %-34s %6.0f ns %6.0f ns %7d %6.2f\n", name, f.median_ns, f.p99_ns, f.frames,
                    f.median_ns / g_agent.median_ns);
    };
    row("cpcprof agent (compiled rows)", g_agent);
    row("libunwind, global cache", g_unw_cached);
    row("libunwind, UNW_CACHE_NONE", g_unw_none);
    row("recorder: rows over the copy", g_copied_rows);
    row("recorder: libunwind remote, copy", g_copied_unw);
    std::printf("(agent and recorder frames negative: the walk did not reach the first frame)\n");
    return 0;
}
