// SPDX-License-Identifier: MIT
// The recorder's walk of a copied user stack (profiler/record/
// stack_unwind.h), on this process's own stack, with the compiled rows
// (as recordings walk) and with libunwind alone (their fallback): an
// ordinary stack gives both the same frames, to the first; a sample that
// the kernel takes as a signal handler returns (the thread inside the
// trampoline's rt_sigreturn) goes on through the code the signal
// interrupted, to the stack's first frame.
#include "profiler/agent/module_scan.h"
#include "profiler/record/stack_unwind.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

using cpcprof::record::CopiedStackUnwinder;

// What the ring would give for a sample taken in rt_sigreturn: the user
// registers (perf_regs AX..IP, R8..R15) and the stack from sp up.
struct Sample {
    uint64_t regs[17] = {};
    unsigned char stack[16 * 1024];
    size_t size = 0;
    uint64_t trampoline = 0, interrupted_pc = 0;
};
Sample g_sample;
uintptr_t g_stack_top = 0;

// Copies the stack as the kernel would: every byte, the other frames'
// red zones too (not instrumented, so that AddressSanitizer's poisoned
// slots between locals are read as plain memory, and a byte at a time
// through volatile so that the loop is not made a call to memcpy).
__attribute__((no_sanitize_address)) void copy_stack(unsigned char *to, uintptr_t from, size_t n) {
    const volatile unsigned char *p = reinterpret_cast<const volatile unsigned char *>(from);
    for (size_t i = 0; i < n; ++i)
        to[i] = p[i];
}

void handler(int, siginfo_t *, void *context) {
    const auto *uc = static_cast<const ucontext_t *>(context);
    const greg_t *g = uc->uc_mcontext.gregs;
    // The handler returns into the trampoline (mov $15, %rax; syscall),
    // whose stack pointer is then the ucontext's address.
    auto sp = reinterpret_cast<uintptr_t>(uc);
    g_sample.trampoline = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
    g_sample.interrupted_pc = uint64_t(g[REG_RIP]);
    const int order[17] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
                           REG_RBP, REG_RSP, REG_RIP, REG_R8,  REG_R9,  REG_R10,
                           REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    for (int i = 0; i < 17; ++i)
        g_sample.regs[i] = uint64_t(g[order[i]]);
    g_sample.regs[7] = sp;
    g_sample.regs[8] = g_sample.trampoline + 9; // after the syscall instruction
    g_sample.size = std::min<size_t>(sizeof g_sample.stack, g_stack_top - sp);
    copy_stack(g_sample.stack, sp, g_sample.size);
}

std::vector<CopiedStackUnwinder::Mapping> own_mappings() {
    std::ifstream in("/proc/self/maps");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<CopiedStackUnwinder::Mapping> maps;
    for (const cpcprof::agent::MapsLine &l : cpcprof::agent::parse_exec_maps(text.str()))
        if (l.path != "[vdso]")
            maps.push_back({l.start, l.end, l.file_offset, l.path});
    return maps;
}

uintptr_t stack_top() {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    void *base = nullptr;
    size_t size = 0;
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    return reinterpret_cast<uintptr_t>(base) + size;
}

constexpr uint64_t kAllRegs = 0x1ffu | (uint64_t(0xff) << 16);

// A sample taken 20 calls deep in ordinary code (getcontext's registers).
__attribute__((noinline)) void take_ordinary(Sample *out) {
    ucontext_t uc;
    getcontext(&uc);
    const greg_t *g = uc.uc_mcontext.gregs;
    const int order[17] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
                           REG_RBP, REG_RSP, REG_RIP, REG_R8,  REG_R9,  REG_R10,
                           REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
    for (int i = 0; i < 17; ++i)
        out->regs[i] = uint64_t(g[order[i]]);
    out->size = std::min<size_t>(sizeof out->stack, g_stack_top - uintptr_t(g[REG_RSP]));
    copy_stack(out->stack, uintptr_t(g[REG_RSP]), out->size);
}

__attribute__((noinline)) int nest(int depth, Sample *out) {
    if (depth == 0) {
        take_ordinary(out);
        return 0;
    }
    int r = nest(depth - 1, out);
    asm volatile("" ::: "memory"); // not a tail call
    return r + 1;
}

// The rows alone (true) or libunwind alone (false).
class CopiedStack : public ::testing::TestWithParam<bool> {
  protected:
    void SetUp() override {
        g_stack_top = stack_top();
        ASSERT_NE(g_stack_top, 0u);
        unwinder.set_method(GetParam() ? CopiedStackUnwinder::Method::rows
                                       : CopiedStackUnwinder::Method::libunwind);
        unwinder.set_mappings(getpid(), own_mappings());
    }
    CopiedStackUnwinder unwinder;
};

} // namespace

TEST_P(CopiedStack, AnOrdinaryStackIsWalkedToItsFirstFrameAsLibunwindWalksIt) {
    static Sample sample;
    nest(20, &sample);
    std::vector<uint64_t> frames, reference;
    bool complete =
        unwinder.unwind(getpid(), sample.regs, kAllRegs, sample.stack, sample.size, 128, &frames);
    EXPECT_TRUE(complete) << frames.size() << " frames: the walk stopped short of the first frame";
    EXPECT_GE(frames.size(), 22u) << "20 nested calls, the sampling function, main's";
    CopiedStackUnwinder libunwind;
    libunwind.set_method(CopiedStackUnwinder::Method::libunwind);
    libunwind.set_mappings(getpid(), own_mappings());
    EXPECT_TRUE(libunwind.unwind(getpid(), sample.regs, kAllRegs, sample.stack, sample.size, 128,
                                 &reference));
    EXPECT_EQ(frames, reference);
}

// A copy whose words are all ones (a stack the walk cannot make sense
// of, as -a meets in processes it knows nothing of): the walk asks for
// addresses up to UINT64_MAX and ends, without a fault.
TEST_P(CopiedStack, AStackOfOnesEndsTheWalkWithoutAFault) {
    static Sample sample;
    std::memset(sample.stack, 0xff, sizeof sample.stack);
    sample.size = sizeof sample.stack;
    for (uint64_t &r : sample.regs)
        r = UINT64_MAX;
    sample.regs[7] = reinterpret_cast<uintptr_t>(&sample) & ~uint64_t(15); // sp
    sample.regs[8] = reinterpret_cast<uintptr_t>(&take_ordinary);          // ip: real code
    std::vector<uint64_t> frames;
    unwinder.unwind(getpid(), sample.regs, kAllRegs, sample.stack, sample.size, 128, &frames);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames[0], sample.regs[8]);
}

TEST_P(CopiedStack, ASampleInSigreturnIsUnwoundThroughTheInterruptedCode) {
    struct sigaction sa {
    }, old{};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ASSERT_EQ(sigaction(SIGUSR2, &sa, &old), 0);
    raise(SIGUSR2);
    sigaction(SIGUSR2, &old, nullptr);
    ASSERT_GT(g_sample.size, 0u);

    std::vector<uint64_t> frames;
    bool complete = unwinder.unwind(getpid(), g_sample.regs, kAllRegs, g_sample.stack,
                                    g_sample.size, 128, &frames);
    ASSERT_GE(frames.size(), 3u);
    EXPECT_EQ(frames[0], g_sample.trampoline + 9) << "the leaf: where the trampoline is";
    EXPECT_EQ(frames[1], g_sample.interrupted_pc) << "then the code the signal interrupted";
    EXPECT_TRUE(complete) << frames.size() << " frames: the walk stopped short of the first frame";
}

INSTANTIATE_TEST_SUITE_P(Walks, CopiedStack, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &i) {
                             return i.param ? "Rows" : "Libunwind";
                         });
