// The agent's .eh_frame compiler on malformed input: it reads only the
// memory it is given, and whatever that memory holds it returns a sorted
// table (maybe empty), never a fault.  Inputs: the fuzz_eh_frame seeds
// (tests/fuzz/corpus/eh_frame: cut from real programs, broken copies, and
// what the fuzzer found), in fuzz_eh_frame's format.  Run under the asan
// preset too, where a read outside the buffer is reported.
#include "cfi.h"

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
        EXPECT_TRUE(std::any_of(rows.begin(), rows.end(),
                                [](const CfiRow &r) { return r.kind == CfiRow::sp; }));
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

} // namespace
