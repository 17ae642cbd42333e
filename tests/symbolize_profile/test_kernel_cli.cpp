// SPDX-License-Identifier: MIT
// Kernel frames as a user meets them: a profile whose stacks begin in the
// kernel (a "[kernel]" module over the kernel's addresses, as the kernel's
// sample ring gives them) is symbolized by `cpcprof symbolize` from a
// kallsyms file (--kallsyms, a fake one here) and `cpcprof report` names
// the kernel's functions; where the kernel hid its addresses, symbolize
// says so once and report shows the addresses.
#include "tests/record/record_harness.h"
#include "tests/support/command_output.h"

#include <gtest/gtest.h>

#include "storage/writer.h"
#include "symbolize/symbolizer.h"

#include <regex>

using namespace cpcprof::test;
namespace storage = cpcprof::storage;

namespace {

constexpr int64_t kMono = 5'000'000'000;
constexpr uint64_t kProg = 0x400000; // /opt/prog, a file that is not there

const char kFakeKallsyms[] = "ffffffff81000c60 T asm_exc_page_fault\n"
                             "ffffffff81000000 T _stext\n"
                             "ffffffff82255aa0 T clear_page_erms\n"
                             "ffffffff82255b00 T clear_page_rep\n"
                             "ffffffffc0a12340 t ext4_file_write_iter\t[ext4]\n"
                             "ffffffffc0a12000 t ext4_llseek\t[ext4]\n";

// 6 samples in clear_page_erms under asm_exc_page_fault, 3 in
// ext4_file_write_iter, 1 at a kernel address no symbol covers; each
// stack goes on into the program.
void write_kernel_profile(const std::string &path) {
    std::string error;
    auto w = storage::Writer::create(path, &error);
    ASSERT_TRUE(w) << error;
    storage::RunInfo run;
    run.command = {"/opt/prog"};
    run.events = {{"cpu-clock", 1'000'000, true}};
    run.start_ns = 1'700'000'000'000'000'000;
    run.start_mono_ns = kMono;
    run.call_graph = "dwarf";
    run.max_depth = 128;
    w->begin_run(run);
    w->add_process({100, 1, {"/opt/prog"}, "/opt/prog", kMono});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, "/opt/prog", "", kProg, kProg + 0x10000, 0, kMono});
    cpcprof::symbolize::Mapping k = cpcprof::symbolize::kernel_mapping();
    w->add_module({100, k.path, k.build_id, k.start, k.end, k.file_offset, kMono});
    const std::vector<uint64_t> fault = {0xffffffff82255aa5, 0xffffffff81000c80, kProg + 0x1010};
    const std::vector<uint64_t> write = {0xffffffffc0a12350, kProg + 0x1020};
    const std::vector<uint64_t> unnamed = {0xffffffff80000010, kProg + 0x1030};
    int ms = 0;
    auto add = [&](const std::vector<uint64_t> &frames, int times) {
        std::vector<uint64_t> values = {1'000'000};
        for (int i = 0; i < times; ++i)
            w->add_sample({100, 100, kMono + ++ms * 1'000'000, true, frames, values});
    };
    add(fault, 6);
    add(write, 3);
    add(unnamed, 1);
    w->add_accounting(100, {10, 10, 0});
    ASSERT_TRUE(w->finish(kMono + 20'000'000, &error)) << error;
}

struct KernelCli : ::testing::Test {
    TempDir dir;
    std::string profile = dir.file("kernel.cpcprof");
    void SetUp() override { write_kernel_profile(profile); }

    RunResult symbolize(const std::string &kallsyms_text) {
        std::string kallsyms = dir.file("kallsyms");
        write_file(kallsyms, kallsyms_text);
        return run_cpcprof(dir, {"symbolize", profile, "--kallsyms", kallsyms});
    }
};

TEST_F(KernelCli, ReportNamesTheKernelsFunctions) {
    RunResult s = symbolize(kFakeKallsyms);
    ASSERT_EQ(s.status, 0) << s.err;
    // clear_page_erms, asm_exc_page_fault, ext4_file_write_iter: 3 of 7
    // addresses (the program's file is not there).
    EXPECT_NE(s.err.find("symbolized 3 of 7 addresses in 2 modules"), std::string::npos) << s.err;
    EXPECT_EQ(s.err.find("[kernel]"), std::string::npos) << "the kernel has symbols\n" << s.err;

    RunResult r = run_cpcprof(dir, {"report", profile});
    ASSERT_EQ(r.status, 0) << r.err;
    TextTable t = parse_table(r.out);
    ASSERT_GE(t.rows.size(), 3u) << r.out;
    EXPECT_EQ(t.cell(0, "function"), "clear_page_erms") << r.out;
    EXPECT_EQ(t.cell(1, "function"), "ext4_file_write_iter [ext4]") << r.out;
    EXPECT_EQ(t.cell(2, "function"), "[kernel]+0xffffffff80000010") << r.out;
    EXPECT_GE(t.find("function", "asm_exc_page_fault"), 0) << "a caller\n" << r.out;
    EXPECT_EQ(r.err.find("no symbols for [kernel]"), std::string::npos) << r.err;
}

TEST_F(KernelCli, HiddenKernelAddressesAreSaidOnce) {
    RunResult s = symbolize("0000000000000000 T _stext\n"
                            "0000000000000000 T clear_page_erms\n"
                            "0000000000000000 t ext4_file_write_iter\t[ext4]\n");
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_EQ(count_lines_containing(s.err, "shows every address as 0"), 1u) << s.err;
    std::smatch m;
    static const std::regex says(R"(\[kernel\]: .*kallsyms shows every address as 0)");
    EXPECT_TRUE(std::regex_search(s.err, m, says)) << s.err;
    EXPECT_NE(s.err.find("CAP_SYSLOG"), std::string::npos) << s.err;

    RunResult r = run_cpcprof(dir, {"report", profile});
    ASSERT_EQ(r.status, 0) << r.err;
    TextTable t = parse_table(r.out);
    EXPECT_EQ(t.cell(0, "function"), "[kernel]+0xffffffff82255aa5") << r.out;
    EXPECT_EQ(count_lines_containing(r.err, "no symbols for [kernel]"), 1u) << r.err;
}

} // namespace
