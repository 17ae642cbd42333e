// SPDX-License-Identifier: MIT
// The kernel's frames on the agent's path (`cpcprof record --kernel --
// CMD`): where this user may count in the kernel, the samples taken there
// keep the kernel's part of the stack above the program's, as the rings
// do; where not, the profile says why once.  Without --kernel the agent
// counts in user mode only, and with --no-kernel so do the rings.
#include "tests/record/profile_symbols.h"
#include "tests/record/record_harness.h"
#include "tests/support/process.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

using namespace cpcprof::test;

namespace {

bool kernel_countable() {
    std::string paranoid;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> paranoid;
    return geteuid() == 0 || std::atoi(paranoid.c_str()) <= 1;
}

bool is_kernel(uint64_t pc) {
    return pc >= (uint64_t(1) << 63);
}

} // namespace

// A program that faults in fresh pages (attachee's att_touch_pages, half
// its CPU time): the fault path's frames, then the program's own, up to
// main; every sample with kernel frames has them innermost.
TEST(RecordKernel, TheAgentKeepsTheKernelsFramesAboveTheProgramsOwn) {
    if (!kernel_countable())
        GTEST_SKIP() << "this user may not count in the kernel (perf_event_paranoid above 1, not "
                        "root)";
    TempDir dir;
    std::ofstream(dir.file("go")) << "";
    RunResult r = run_cpcprof(dir, {"record", "--kernel", "-o", dir.file("out.cpcprof"), "--",
                                    ATTACHEE_EXE, dir.file("go"), "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("not recorded"), std::string::npos) << r.err;
    Profile p = load_profile(dir.file("out.cpcprof"));
    ASSERT_TRUE(p) << p.error;
    ProfileSymbols syms(*p.reader);
    size_t with_kernel = 0, kernel_inside = 0, under_main = 0, under_touch = 0, complete = 0;
    for (const SampleCopy &s : p.samples) {
        complete += s.complete;
        size_t nk = 0;
        while (nk < s.frames.size() && is_kernel(s.frames[nk]))
            ++nk;
        bool any = false;
        for (uint64_t pc : s.frames)
            any = any || is_kernel(pc);
        if (!any)
            continue;
        ++with_kernel;
        bool only_inside = true;
        for (size_t i = nk; i < s.frames.size(); ++i)
            only_inside = only_inside && !is_kernel(s.frames[i]);
        kernel_inside += only_inside;
        std::vector<std::string> stack = syms.stack(s.view());
        under_main += std::find(stack.begin(), stack.end(), "main") != stack.end();
        under_touch += std::find(stack.begin(), stack.end(), "att_touch_pages") != stack.end();
    }
    ASSERT_GT(p.samples.size(), 100u);
    EXPECT_GE(with_kernel, p.samples.size() / 10)
        << "a program faulting in pages a quarter of its time";
    EXPECT_EQ(kernel_inside, with_kernel) << "a kernel frame below a user frame";
    // A merged overflow's stack is gone (its PC alone); the others go on
    // through the program's functions (the faults of att_touch_pages, its
    // munmap, the clock's system call) to main.
    EXPECT_GE(double(under_main), 0.8 * double(with_kernel)) << "kernel frames cut from main";
    EXPECT_GE(double(under_touch), 0.3 * double(with_kernel)) << "the faults of att_touch_pages";
    // Overflows whose signals merged (more of them on a busy machine) keep
    // their PC alone; the others walk to the root through the kernel's part.
    EXPECT_GE(double(complete), 0.9 * double(p.samples.size()));
    RunResult report = run_cpcprof(dir, {"report", dir.file("out.cpcprof")});
    ASSERT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.out.find("[kernel]"), std::string::npos) << report.out;
    bool fault_path = report.out.find("page_fault") != std::string::npos ||
                      report.out.find("clear_page") != std::string::npos ||
                      report.out.find("handle_mm_fault") != std::string::npos;
    EXPECT_TRUE(fault_path) << report.out;

    // Without --kernel: user mode only, no kernel frame.
    r = run_cpcprof(
        dir, {"record", "-o", dir.file("user.cpcprof"), "--", ATTACHEE_EXE, dir.file("go"), "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    Profile u = load_profile(dir.file("user.cpcprof"));
    ASSERT_TRUE(u) << u.error;
    ASSERT_GT(u.samples.size(), 40u) << "att_compute: half of 0.2 s, in user mode";
    for (const SampleCopy &s : u.samples)
        for (uint64_t pc : s.frames)
            ASSERT_FALSE(is_kernel(pc)) << "a kernel frame without --kernel";
}

// The rings keep the kernel's frames by default where this user may;
// --no-kernel counts in user mode alone there too.
TEST(RecordKernel, NoKernelLeavesTheRingsInUserMode) {
    if (!kernel_countable())
        GTEST_SKIP() << "this user may not count in the kernel (perf_event_paranoid above 1, not "
                        "root): the rings count in user mode whatever the option";
    TempDir dir;
    std::ofstream(dir.file("go")) << "";
    auto kernel_samples = [&](const std::vector<std::string> &extra, const char *name) {
        std::vector<std::string> args = {"record", "--capture", "ring", "-o", dir.file(name)};
        args.insert(args.end(), extra.begin(), extra.end());
        args.insert(args.end(), {"--", ATTACHEE_EXE, dir.file("go"), "0"});
        RunResult r = run_cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << r.err;
        Profile p = load_profile(dir.file(name));
        EXPECT_TRUE(p) << p.error;
        size_t n = 0;
        for (const SampleCopy &s : p.samples)
            n += std::any_of(s.frames.begin(), s.frames.end(), is_kernel);
        EXPECT_GT(p.samples.size(), 40u) << "att_compute: half of 0.2 s, in user mode\n" << r.err;
        return n;
    };
    EXPECT_GT(kernel_samples({}, "rings.cpcprof"), 10u)
        << "a program faulting in pages a quarter of its time";
    EXPECT_EQ(kernel_samples({"--no-kernel"}, "user.cpcprof"), 0u);
}

// Counting in the kernel, an overflow inside exec itself would leave its
// signal pending for the new image, which it kills: shells that exec,
// sixty times, sampled every 250 us of CPU time, all end well.
TEST(RecordKernel, ExecsWhileCountingTheKernelKillNothing) {
    if (!kernel_countable())
        GTEST_SKIP() << "this user may not count in the kernel (perf_event_paranoid above 1, not "
                        "root)";
    TempDir dir;
    const std::string script = "i=0; while [ $i -lt 60 ]; do i=$((i+1)); "
                               "/bin/sh -c 'exec /bin/true' || exit 3; done; echo ended";
    RunResult r = run_cpcprof(dir,
                              {"record", "--kernel", "-c", "250000", "-o", dir.file("out.cpcprof"),
                               "--", "/bin/sh", "-c", script},
                              120);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("ended"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("killed by SIGTRAP"), std::string::npos) << r.err;
}

// Where this user may not count in the kernel: said once, and kept.
TEST(RecordKernel, WithoutTheKernelTheProfileSaysWhyOnce) {
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to run the recorder as another user";
    std::string paranoid;
    std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> paranoid;
    if (std::atoi(paranoid.c_str()) <= 1)
        GTEST_SKIP() << "perf_event_paranoid " << paranoid << " lets every user see the kernel";
    TempDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    CaptureOptions as_nobody;
    as_nobody.uid = 65534;
    Captured r = run_capturing({CPCPROF_EXE, "record", "--kernel", "-o", dir.file("out.cpcprof"),
                                "--", "/bin/sh", "-c", "/bin/true; /bin/true"},
                               as_nobody);
    ASSERT_EQ(r.status, 0) << r.err;
    size_t first = r.err.find("the kernel's part of the stacks is not recorded");
    ASSERT_NE(first, std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("the kernel's part", first + 1), std::string::npos) << "said twice";
    RunResult report = run_cpcprof(dir, {"report", dir.file("out.cpcprof")});
    EXPECT_NE(report.out.find("the kernel's part of the stacks is not recorded"), std::string::npos)
        << report.out;
}
