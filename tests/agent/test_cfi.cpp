// SPDX-License-Identifier: MIT
// The agent's .eh_frame compiler on malformed input: it reads only the
// memory it is given, and whatever that memory holds it returns a sorted
// table (maybe empty), never a fault.  Inputs: the fuzz_eh_frame seeds
// (tests/fuzz/corpus/eh_frame: cut from real programs, broken copies, and
// what the fuzzer found), in fuzz_eh_frame's format.  Run under the asan
// preset too, where a read outside the buffer is reported.
#include "profiler/agent/eh_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace {

using cpcprof::agent::CfiMemory;
using cpcprof::agent::CfiRow;
using cpcprof::agent::compile_eh_frame;
using cpcprof::agent::kDwarfRsp;

std::vector<uint8_t> read_file(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// Compiles a seed as fuzz_eh_frame does; `readable` bytes of it (from the
// header on) may be read.
std::vector<CfiRow> compile_seed(const std::vector<uint8_t> &seed, size_t readable) {
    uint64_t vaddr;
    std::memcpy(&vaddr, seed.data(), 8);
    // A copy of exactly the readable bytes: ASan sees a read past them.
    std::vector<uint8_t> mem(seed.begin() + 8, seed.begin() + 8 + readable);
    const CfiMemory range[] = {{mem.data(), mem.data() + mem.size()}};
    uintptr_t bias = reinterpret_cast<uintptr_t>(mem.data()) - static_cast<uintptr_t>(vaddr);
    return compile_eh_frame(mem.data(), bias, range);
}

bool sorted(const std::vector<CfiRow> &rows) {
    for (size_t i = 1; i < rows.size(); ++i)
        if (rows[i - 1].pc > rows[i].pc)
            return false;
    return true;
}

const std::filesystem::path kSeeds = FUZZ_CORPUS "/eh_frame";

TEST(CompileEhFrame, EverySeedGivesASortedTable) {
    size_t seeds = 0;
    for (const auto &e : std::filesystem::directory_iterator(kSeeds)) {
        SCOPED_TRACE(e.path().string());
        std::vector<uint8_t> seed = read_file(e.path());
        if (seed.size() < 8 + 4)
            continue;
        EXPECT_TRUE(sorted(compile_seed(seed, seed.size() - 8)));
        ++seeds;
    }
    EXPECT_GE(seeds, 5u);
}

TEST(CompileEhFrame, RealTablesCompile) {
    for (const char *name : {"demo-c", "cxx-exceptions", "libz"}) {
        SCOPED_TRACE(name);
        std::vector<uint8_t> seed = read_file(kSeeds / name);
        ASSERT_GT(seed.size(), 8u + 12u);
        std::vector<CfiRow> rows = compile_seed(seed, seed.size() - 8);
        EXPECT_GT(rows.size(), 2u);
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const CfiRow &r) {
            return r.kind == CfiRow::reg && r.cfa_reg == kDwarfRsp;
        }));
    }
}

// The header alone is readable: every FDE it names lies outside, so no
// row, and nothing read beyond the header (ASan in the asan preset).
TEST(CompileEhFrame, NothingOutsideTheReadableMemoryIsRead) {
    std::vector<uint8_t> seed = read_file(kSeeds / "libz");
    ASSERT_GT(seed.size(), 8u + 64u);
    for (size_t readable : {size_t(4), size_t(12), size_t(40), (seed.size() - 8) / 2})
        EXPECT_TRUE(sorted(compile_seed(seed, readable))) << readable;
    EXPECT_TRUE(compile_seed(seed, 40).empty());
}

// A crafted .eh_frame_hdr and .eh_frame: two CIEs, "zRS" (a signal
// trampoline, as glibc's __restore_rt) and "zR", each with one FDE whose
// CFA is an expression (breg7 160; deref: the ucontext's rsp).  Absolute
// 4-byte addresses, load bias 0.
class EhFrameBuilder {
  public:
    void u8(uint8_t v) { b_.push_back(v); }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i)
            b_.push_back(uint8_t(v >> (8 * i)));
    }
    void bytes(std::initializer_list<uint8_t> v) { b_.insert(b_.end(), v); }
    size_t size() const { return b_.size(); }
    void put32(size_t at, uint32_t v) {
        for (int i = 0; i < 4; ++i)
            b_[at + i] = uint8_t(v >> (8 * i));
    }
    // A CIE with augmentation aug ("zR" or "zRS"); returns its offset.
    size_t cie(const char *aug) {
        size_t at = size();
        u32(0); // length, set below
        u32(0); // CIE id
        u8(1);  // version
        for (const char *p = aug; *p; ++p)
            u8(uint8_t(*p));
        u8(0);
        bytes({0x01, 0x78, 0x10}); // code align 1, data align -8, ra r16
        bytes({0x01, 0x03});       // augmentation data: R = udata4
        bytes({0x0c, 0x07, 0x08}); // def_cfa rsp+8
        end(at);
        return at;
    }
    // An FDE of [pc, pc + 16) under the CIE at cie; returns its offset.
    size_t fde(size_t cie_at, uint32_t pc) {
        size_t at = size();
        u32(0);
        u32(uint32_t(size() - cie_at)); // CIE pointer
        u32(pc);
        u32(16);
        u8(0);                                       // augmentation data length
        bytes({0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06}); // def_cfa_expression
        end(at);
        return at;
    }
    void end(size_t at) {
        while ((size() - at) % 4 != 0)
            u8(0); // DW_CFA_nop
        put32(at, uint32_t(size() - at - 4));
    }
    std::vector<uint8_t> b_;
};

TEST(CompileEhFrame, SignalFramesOfTheSAugmentation) {
    EhFrameBuilder e;
    // Header: version 1, eh_frame_ptr udata4, count udata4, table datarel sdata4.
    e.bytes({0x01, 0x03, 0x03, 0x3b});
    e.u32(0); // eh_frame_ptr: unused
    e.u32(2);
    size_t table = e.size();
    for (int i = 0; i < 4; ++i)
        e.u32(0); // (initial location, FDE) x 2, set below
    size_t signal_cie = e.cie("zRS");
    size_t signal_fde = e.fde(signal_cie, 0x1000);
    size_t plain_cie = e.cie("zR");
    size_t plain_fde = e.fde(plain_cie, 0x2000);
    e.put32(table + 4, uint32_t(signal_fde));
    e.put32(table + 12, uint32_t(plain_fde));
    const CfiMemory range[] = {{e.b_.data(), e.b_.data() + e.size()}};
    std::vector<CfiRow> rows = compile_eh_frame(e.b_.data(), 0, range);
    auto kind_at = [&](uint32_t pc) {
        int k = -1;
        for (const CfiRow &r : rows)
            if (r.pc <= pc)
                k = r.kind;
        return k;
    };
    EXPECT_EQ(kind_at(0x1000), CfiRow::signal);
    EXPECT_EQ(kind_at(0x100f), CfiRow::signal);
    EXPECT_EQ(kind_at(0x1010), CfiRow::gap); // past the trampoline
    // The same CFA expression without "S": an ordinary frame whose CFA is
    // loaded from the stack.
    EXPECT_EQ(kind_at(0x2000), CfiRow::deref);
    EXPECT_TRUE(
        std::any_of(rows.begin(), rows.end(), [](const CfiRow &r) { return r.pc == 0x2000; }));
}

} // namespace
