// SPDX-License-Identifier: MIT
// The agent's module table (profiler/agent/module_scan.h) from crafted
// /proc/PID/maps texts and loader lists, and from this process's own.
#include "profiler/agent/module_scan.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <time.h>

using namespace cpcprof::agent;

namespace {

// A node-like process: its binary loaded, part of its text mapped again
// (r-xp at 0x7f...), JIT code in anonymous memory (two neighbouring
// regions, one named with PR_SET_VMA_ANON_NAME), a file mapped executable
// by hand, and the kernel's regions.
const char *kMaps =
    "55d0c0a00000-55d0c0c00000 r--p 00000000 fd:01 1311 /usr/bin/node\n"
    "55d0c0c00000-55d0c2e00000 r-xp 00200000 fd:01 1311 /usr/bin/node\n"
    "55d0c2e00000-55d0c2f00000 rw-p 02400000 fd:01 1311 /usr/bin/node\n"
    "3c4a00040000-3c4a00080000 rwxp 00000000 00:00 0 \n"
    "3c4a00080000-3c4a000c0000 r-xp 00000000 00:00 0 [anon:v8 code]\n"
    "3c4a000c0000-3c4a00100000 rw-p 00000000 00:00 0 \n"
    "7f1200000000-7f1200400000 r-xp 00600000 fd:01 1311 /usr/bin/node\n"
    "7f1300000000-7f1300010000 r-xp 00001000 fd:01 2222 /opt/plugin.bin (deleted)\n"
    "7f14c0000000-7f14c0100000 r-xp 00028000 fd:01 3333 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7ffd5a1fe000-7ffd5a200000 r-xp 00000000 00:00 0 [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]\n"
    "garbage line\n";

} // namespace

TEST(ModuleScan, ParsesTheExecutableLines) {
    std::vector<MapsLine> lines = parse_exec_maps(kMaps);
    ASSERT_EQ(lines.size(), 8u);
    EXPECT_EQ(lines[0].start, 0x55d0c0c00000u);
    EXPECT_EQ(lines[0].end, 0x55d0c2e00000u);
    EXPECT_EQ(lines[0].file_offset, 0x200000u);
    EXPECT_EQ(lines[0].dev_major, 0xfdu);
    EXPECT_EQ(lines[0].dev_minor, 1u);
    EXPECT_EQ(lines[0].inode, 1311u);
    EXPECT_EQ(lines[0].path, "/usr/bin/node");
    EXPECT_EQ(lines[1].path, "");
    EXPECT_EQ(lines[2].path, "[anon:v8 code]");
    EXPECT_EQ(lines[4].path, "/opt/plugin.bin (deleted)");
    EXPECT_EQ(lines[7].path, "[vsyscall]");
}

TEST(ModuleScan, AddsWhatTheLoaderDoesNotList) {
    // The loader's view: node (unnamed main program, named by the caller),
    // libc under the name it was loaded by, the vDSO.
    std::vector<ModuleEntry> modules = {
        {0x55d0c0c00000, 0x55d0c2d80000, 0x200000, "/usr/bin/node", "aa11"},
        {0x7f14c0000000, 0x7f14c00f0000, 0x28000, "/lib/x86_64-linux-gnu/libc.so.6", "bb22"},
        {0x7ffd5a1fe000, 0x7ffd5a1ff000, 0, "linux-vdso.so.1", "cc33"},
    };
    add_unlisted_mappings(modules, parse_exec_maps(kMaps), 4242);
    ASSERT_EQ(modules.size(), 6u);
    // The loader's first, untouched.
    EXPECT_EQ(modules[1].path, "/lib/x86_64-linux-gnu/libc.so.6");
    // The anonymous regions, merged: offsets are addresses.
    EXPECT_EQ(modules[3].path, "/tmp/perf-4242.map");
    EXPECT_EQ(modules[3].start, 0x3c4a00040000u);
    EXPECT_EQ(modules[3].end, 0x3c4a000c0000u);
    EXPECT_EQ(modules[3].file_offset, 0x3c4a00040000u);
    EXPECT_EQ(modules[3].build_id, "");
    // node's second mapping of its text: the loader's name and build-id.
    EXPECT_EQ(modules[4].path, "/usr/bin/node");
    EXPECT_EQ(modules[4].build_id, "aa11");
    EXPECT_EQ(modules[4].start, 0x7f1200000000u);
    EXPECT_EQ(modules[4].file_offset, 0x600000u);
    // A file the loader does not know: as /proc shows it.
    EXPECT_EQ(modules[5].path, "/opt/plugin.bin (deleted)");
    EXPECT_EQ(modules[5].build_id, "");
    EXPECT_EQ(modules[5].file_offset, 0x1000u);
}

TEST(ModuleScan, KnownRangesCoverTheTable) {
    KnownRanges known(
        {{0x1000, 0x2000, 0, "a", ""}, {0x1800, 0x3000, 0, "b", ""}, {0x5000, 0x6000, 0, "c", ""}});
    EXPECT_FALSE(known.covers(0xfff));
    EXPECT_TRUE(known.covers(0x1000));
    EXPECT_TRUE(known.covers(0x2fff));
    EXPECT_FALSE(known.covers(0x3000));
    EXPECT_TRUE(known.covers(0x5800));
    EXPECT_FALSE(known.covers(0x6000));
    EXPECT_FALSE(KnownRanges().covers(0x1000));
}

// This process: anonymous executable memory it maps appears, as does
// the loader's main program.  Prints what a scan costs.
TEST(ModuleScan, ScansThisProcess) {
    long page = sysconf(_SC_PAGESIZE);
    void *code = mmap(nullptr, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(code, MAP_FAILED);
    auto start = reinterpret_cast<uint64_t>(code);
    std::vector<ModuleEntry> modules = scan_modules("/proc/self/exe");
    bool found = false;
    for (const ModuleEntry &m : modules)
        found |= m.start <= start && start < m.end &&
                 m.path == "/tmp/perf-" + std::to_string(getpid()) + ".map";
    EXPECT_TRUE(found);
    EXPECT_TRUE(KnownRanges(modules).covers(reinterpret_cast<uint64_t>(&scan_modules)));

    // The cost of a scan with the mappings a process has now, and with
    // 10 000 more (every other page of a region made executable, so that
    // the kernel cannot merge them).
    auto cpu_us = [] {
        timespec ts;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
    };
    auto cost_us = [&] {
        double t0 = cpu_us();
        constexpr int kRuns = 20;
        for (int i = 0; i < kRuns; ++i)
            scan_modules("/proc/self/exe");
        return (cpu_us() - t0) / kRuns;
    };
    double small = cost_us();
    constexpr size_t kMany = 10000;
    size_t len = 2 * kMany * page;
    char *region = static_cast<char *>(
        mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0));
    ASSERT_NE(region, MAP_FAILED);
    for (size_t i = 0; i < kMany; ++i)
        ASSERT_EQ(mprotect(region + 2 * i * page, page, PROT_READ | PROT_EXEC), 0);
    size_t entries = scan_modules("/proc/self/exe").size();
    double many = cost_us();
    std::printf("module scan: %zu entries %.0f us; %zu entries %.0f us (CPU time, this "
                "machine)\n",
                modules.size(), small, entries, many);
    EXPECT_GE(entries, modules.size() + kMany);
    munmap(region, len);
    munmap(code, page);
}
