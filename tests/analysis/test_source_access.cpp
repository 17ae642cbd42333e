// SPDX-License-Identifier: MIT
// Which source files annotate and cpcprof-gui's source page may open
// (profiler/report/source_access.h): the path-escape cases of a profile
// from someone else.  None is opened, none hangs (a FIFO with no writer
// would block a plain open(2) for ever: the test would time out).
#include "profiler/analysis/disassembly.h"
#include "profiler/analysis/source_access.h"
#include "tests/support/temp_dir.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace cpcprof::test {
namespace {

using cpcprof::analysis::open_source;
using cpcprof::analysis::source_refusal;
using cpcprof::analysis::SourceRoots;

void write(const std::string &path, const std::string &text) {
    std::ofstream(path) << text;
}

struct SourceAccess : ::testing::Test {
    TempDir dir{"cpcprof-source"};
    std::string root = dir.file("root");
    std::string outside = dir.file("outside");
    void SetUp() override {
        ASSERT_EQ(::mkdir(root.c_str(), 0755), 0);
        ASSERT_EQ(::mkdir((root + "/src").c_str(), 0755), 0);
        ASSERT_EQ(::mkdir(outside.c_str(), 0755), 0);
        write(root + "/src/a.c", "int a;\nint b;\n");
        write(outside + "/secret.c", "secret\n");
    }
    SourceRoots user_root() const {
        SourceRoots r;
        r.dirs = {root};
        r.profile_paths = false;
        return r;
    }
};

TEST_F(SourceAccess, AFileUnderARootIsRead) {
    EXPECT_EQ(source_refusal(root + "/src/a.c", {root}), "");
    cpcprof::analysis::SourceFile f = open_source("/build/src/a.c", user_root());
    EXPECT_EQ(f.path, root + "/src/a.c") << f.why_not;
    ASSERT_EQ(f.lines.size(), 2u);
    EXPECT_EQ(f.lines[1], "int b;");
}

TEST_F(SourceAccess, DotDotIsRefusedEvenWhenItStaysInside) {
    EXPECT_EQ(source_refusal(root + "/src/../../outside/secret.c", {root}),
              "the path has a '..' component");
    EXPECT_EQ(source_refusal(root + "/src/../src/a.c", {root}), "the path has a '..' component");
    // A profile naming ../../outside/secret.c: every candidate has the '..'.
    cpcprof::analysis::SourceFile f = open_source("../outside/secret.c", user_root());
    EXPECT_TRUE(f.path.empty());
    EXPECT_TRUE(f.lines.empty());
    EXPECT_NE(f.why_not.find("'..'"), std::string::npos) << f.why_not;
}

TEST_F(SourceAccess, AbsolutePathOutsideTheRootsIsRefused) {
    EXPECT_EQ(source_refusal(outside + "/secret.c", {root}), "outside the source roots");
    cpcprof::analysis::SourceFile f = open_source(outside + "/secret.c", user_root());
    EXPECT_TRUE(f.path.empty());
    EXPECT_NE(f.why_not.find("outside the source roots"), std::string::npos) << f.why_not;
    // With the profile's own paths as roots it is where it was compiled.
    SourceRoots with_profile = user_root();
    with_profile.profile_paths = true;
    EXPECT_EQ(open_source(outside + "/secret.c", with_profile).path, outside + "/secret.c");
}

TEST_F(SourceAccess, SymlinkLeadingOutOfTheRootIsRefused) {
    ASSERT_EQ(::symlink((outside + "/secret.c").c_str(), (root + "/src/b.c").c_str()), 0);
    ASSERT_EQ(::symlink(outside.c_str(), (root + "/linkdir").c_str()), 0);
    std::string why = source_refusal(root + "/src/b.c", {root});
    EXPECT_NE(why.find("symlink leads outside"), std::string::npos) << why;
    why = source_refusal(root + "/linkdir/secret.c", {root});
    EXPECT_NE(why.find("symlink leads outside"), std::string::npos) << why;
    // Also when the profile names the link itself as the file compiled.
    SourceRoots r = user_root();
    r.profile_paths = true;
    cpcprof::analysis::SourceFile f = open_source(root + "/src/b.c", r);
    EXPECT_TRUE(f.lines.empty());
    // A symlink that stays inside is followed.
    ASSERT_EQ(::symlink("a.c", (root + "/src/c.c").c_str()), 0);
    EXPECT_EQ(source_refusal(root + "/src/c.c", {root}), "");
}

TEST_F(SourceAccess, FifoIsRefusedWithoutBlocking) {
    std::string fifo = root + "/src/f.c";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    EXPECT_EQ(source_refusal(fifo, {root}), "a FIFO, not a regular file");
    SourceRoots r = user_root();
    r.profile_paths = true;
    cpcprof::analysis::SourceFile f = open_source(fifo, r);
    EXPECT_TRUE(f.path.empty());
    EXPECT_NE(f.why_not.find("FIFO"), std::string::npos) << f.why_not;
}

TEST_F(SourceAccess, DevZeroAndProcAreRefused) {
    EXPECT_EQ(source_refusal("/dev/zero", {"/dev"}), "a device, not a regular file");
    SourceRoots r;
    r.profile_paths = true; // the profile names /dev/zero: /dev is its root
    cpcprof::analysis::SourceFile f = open_source("/dev/zero", r);
    EXPECT_TRUE(f.lines.empty());
    EXPECT_NE(f.why_not.find("device"), std::string::npos) << f.why_not;
    EXPECT_EQ(source_refusal("/proc/self/environ", {"/proc/self"}),
              "in /proc or /sys, not a source file");
    EXPECT_EQ(source_refusal(root + "/src", {root}), "a directory, not a regular file");
}

TEST_F(SourceAccess, FilesOver16MiBAreRefused) {
    std::string big = root + "/src/big.c";
    { std::ofstream(big).put('x'); }
    ASSERT_EQ(::truncate(big.c_str(), off_t(cpcprof::analysis::kMaxSourceBytes) + 1), 0);
    std::string why = source_refusal(big, {root});
    EXPECT_EQ(why.rfind("larger than 16 MiB", 0), 0u) << why;
    SourceRoots r = user_root();
    cpcprof::analysis::SourceFile f = open_source(big, r);
    EXPECT_TRUE(f.lines.empty());
    // 16 MiB exactly is read.
    ASSERT_EQ(::truncate(big.c_str(), off_t(cpcprof::analysis::kMaxSourceBytes)), 0);
    EXPECT_EQ(source_refusal(big, {root}), "");
}

TEST_F(SourceAccess, PathMapMovesAStoredPrefix) {
    std::pair<std::string, std::string> map;
    std::string error;
    ASSERT_TRUE(cpcprof::analysis::parse_remap("/build/tree=" + root, &map, &error)) << error;
    EXPECT_FALSE(cpcprof::analysis::parse_remap("/build/tree", &map, &error));
    EXPECT_NE(error.find("OLD=NEW"), std::string::npos);
    EXPECT_FALSE(cpcprof::analysis::parse_remap("=x", &map, &error));
    SourceRoots r;
    r.profile_paths = false;
    ASSERT_TRUE(cpcprof::analysis::parse_remap("/build/tree/=" + root + "/", &map, &error))
        << error;
    r.remaps = {map};
    EXPECT_EQ(cpcprof::analysis::remap_path("/build/tree/src/a.c", r), root + "/src/a.c");
    EXPECT_EQ(cpcprof::analysis::remap_path("/build/treehouse/a.c", r), "/build/treehouse/a.c");
    cpcprof::analysis::SourceFile f = open_source("/build/tree/src/a.c", r);
    EXPECT_EQ(f.path, root + "/src/a.c") << f.why_not;
    // A remapped path still may not climb out.
    f = open_source("/build/tree/../outside/secret.c", r);
    EXPECT_TRUE(f.lines.empty());
}

TEST_F(SourceAccess, MissingFileSaysNotFound) {
    cpcprof::analysis::SourceFile f = open_source("/nowhere/x.c", user_root());
    EXPECT_TRUE(f.path.empty());
    EXPECT_NE(f.why_not.find("not found"), std::string::npos) << f.why_not;
    EXPECT_EQ(cpcprof::analysis::open_source("", user_root()).why_not,
              "the profile names no source file");
}

// The module a profile names is disassembled only when it is a regular
// file: a FIFO or a device is refused, not handed to objdump (which would
// block on the FIFO).
TEST_F(SourceAccess, DisassemblyRefusesModulesThatAreNotFiles) {
    std::string fifo = root + "/lib.so";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
    cpcprof::analysis::Disassembly d = cpcprof::analysis::disassemble(fifo, 0x1000);
    EXPECT_TRUE(d.instructions.empty());
    EXPECT_NE(d.error.find("not a regular file"), std::string::npos) << d.error;
    d = cpcprof::analysis::disassemble("/dev/zero", 0);
    EXPECT_NE(d.error.find("not a regular file"), std::string::npos) << d.error;
    d = cpcprof::analysis::disassemble(root + "/missing.so", 0);
    EXPECT_NE(d.error.find("not found"), std::string::npos) << d.error;
    d = cpcprof::analysis::disassemble("relative.so", 0);
    EXPECT_FALSE(d.error.empty());
}

// A function of this test, for the stripped copy below.
__attribute__((noinline)) int fde_probe(int n) {
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += (i * i) ^ n;
    return s;
}

// The file offset of code at address in this process's own executable
// (/proc/self/maps); 0 when not found.
uint64_t self_offset(const void *address) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    auto at = uint64_t(reinterpret_cast<uintptr_t>(address));
    while (std::getline(maps, line)) {
        unsigned long long start = 0, end = 0, off = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %*s %llx", &start, &end, &off) == 3 &&
            at >= start && at < end)
            return at - start + off;
    }
    return 0;
}

// A stripped file (no symbol for the function) is disassembled over the
// extent its call-frame information gives the function: the same code as
// the symbol's in the unstripped file.
TEST(Disassembly, AStrippedFileIsDisassembledByItsCallFrameInformation) {
    ASSERT_GT(fde_probe(3), -1);
    char exe[4096];
    ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    ASSERT_GT(n, 0);
    exe[n] = 0;
    uint64_t off = self_offset(reinterpret_cast<const void *>(&fde_probe));
    ASSERT_NE(off, 0u);
    TempDir dir{"cpcprof-fde"};
    std::string bare_path = dir.file("stripped");
    std::string cmd = "objcopy --strip-all '" + std::string(exe) + "' '" + bare_path + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    cpcprof::analysis::Disassembly full = cpcprof::analysis::disassemble(exe, off);
    ASSERT_TRUE(full.error.empty()) << full.error;
    ASSERT_NE(full.symbol.find("fde_probe"), std::string::npos) << full.symbol;
    cpcprof::analysis::Disassembly bare = cpcprof::analysis::disassemble(bare_path, off);
    ASSERT_TRUE(bare.error.empty()) << bare.error;
    EXPECT_NE(bare.symbol.find("call-frame information"), std::string::npos) << bare.symbol;
    EXPECT_EQ(bare.symbol.substr(0, 10), "stripped+0");
    EXPECT_EQ(bare.start, full.start);
    EXPECT_EQ(bare.end, full.end);
    ASSERT_EQ(bare.instructions.size(), full.instructions.size());
    for (size_t i = 0; i < bare.instructions.size(); ++i) {
        EXPECT_EQ(bare.instructions[i].address, full.instructions[i].address);
        EXPECT_EQ(bare.instructions[i].offset, full.instructions[i].offset);
    }
}

// objdump -d -l --inlines text (binutils 2.40): each instruction gets the
// function's own line, and inlined code where it came from.
TEST(ObjdumpText, LinesAndInlinedCode) {
    const char *text = "t:     file format elf64-x86-64\n"
                       "\n"
                       "Disassembly of section .text:\n"
                       "\n"
                       "0000000000001160 <work>:\n"
                       "work():\n"
                       "/tmp/t.c:4\n"
                       "    1160:\ttest   %edi,%edi\n"
                       "square():\n"
                       "/tmp/t.h:1\n"
                       "inlined by /tmp/t.c:5 (work)\n"
                       "    1170:\tmov    %eax,%esi\n"
                       "work():\n"
                       "/tmp/t.c:5 (discriminator 2)\n"
                       "    1172:\tmov    %ecx,%edx\n";
    std::vector<cpcprof::analysis::Instruction> in = cpcprof::analysis::parse_objdump(text);
    ASSERT_EQ(in.size(), 3u);
    EXPECT_EQ(in[0].address, 0x1160u);
    EXPECT_EQ(in[0].text, "test   %edi,%edi");
    EXPECT_EQ(in[0].file, "/tmp/t.c");
    EXPECT_EQ(in[0].line, 4u);
    EXPECT_TRUE(in[0].inlined_from.empty());
    EXPECT_EQ(in[1].file, "/tmp/t.c");
    EXPECT_EQ(in[1].line, 5u);
    EXPECT_EQ(in[1].inlined_from, "square() /tmp/t.h:1");
    EXPECT_EQ(in[1].inner_file, "/tmp/t.h");
    EXPECT_EQ(in[1].inner_line, 1u);
    EXPECT_EQ(in[2].line, 5u);
    EXPECT_TRUE(in[2].inlined_from.empty());
}

// In a function known by its call-frame extent [0x5af2d0, 0x5af8c0),
// objdump's names of branch targets after unrelated exported symbols go:
// a target inside is an offset from the function's start, one outside
// keeps an exact symbol only.
TEST(ObjdumpText, TargetsOfAFunctionWithoutSymbolAreRenamed) {
    using cpcprof::analysis::rename_targets;
    const uint64_t start = 0x5af2d0, end = 0x5af8c0;
    EXPECT_EQ(rename_targets("jle    5af45d <_Py_read@@Base+0x79d>", start, end),
              "jle    5af45d <+0x18d>");
    EXPECT_EQ(rename_targets("je     45cc98 <Py_Finalize@@Base+0x3da2>", start, end),
              "je     45cc98");
    EXPECT_EQ(rename_targets("call   45d100 <PyObject_Malloc@@Base>", start, end),
              "call   45d100 <PyObject_Malloc@@Base>");
    EXPECT_EQ(rename_targets("mov    0x4ac659(%rip),%r14        # a5b980 <_PyRuntime@@Base+0x240>",
                             start, end),
              "mov    0x4ac659(%rip),%r14        # a5b980");
    EXPECT_EQ(rename_targets("mov    %rdi,%r15", start, end), "mov    %rdi,%r15");
    EXPECT_EQ(rename_targets("call   *%rax", start, end), "call   *%rax");
}

} // namespace
} // namespace cpcprof::test
