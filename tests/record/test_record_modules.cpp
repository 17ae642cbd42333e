// SPDX-License-Identifier: MIT
// Code a program maps itself: its own text a second time (node runs part
// of its binary from such a copy) and JIT code in anonymous memory, named
// by the perf map the program writes.  The module table holds those
// mappings, and the recording's own symbolization names their samples.
#include "tests/record/record_harness.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

using namespace cpcprof::test;
using cpcprof::storage::ModuleRecord;
using cpcprof::storage::Reader;

namespace {

const std::string kHotLoop = "LazyCompile:*hot_loop jit.js:3";
const std::string kOuter = "LazyCompile:*outer jit.js:9";

Profile record(const TempDir &dir, const char *call_graph, const std::vector<std::string> &cmd,
               std::string *out) {
    std::vector<std::string> args = {"record", "--call-graph", call_graph,
                                     "-o",     "out.cpcprof",  "--"};
    args.insert(args.end(), cmd.begin(), cmd.end());
    RunResult run = run_cpcprof(dir, args, 60);
    EXPECT_EQ(run.status, 0) << run.err;
    *out = run.out;
    return load_profile(dir.file("out.cpcprof"));
}

// "WORD START END" (hex) from a target's output; {0, 0} if absent.
std::pair<uint64_t, uint64_t> range_printed(const std::string &out, const std::string &word) {
    std::istringstream in(out);
    std::string w;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream l(line);
        uint64_t start = 0, end = 0;
        if (l >> w >> std::hex >> start >> end && w == word)
            return {start, end};
    }
    return {0, 0};
}

// The real (not inlined) function the recording's symbols give address
// in the sample's process at its time; "" when none.
std::string function_at(const Reader &r, int pid, uint64_t address, int64_t time_ns) {
    uint32_t chain = r.symbol_table().find(r.locate(pid, address, time_ns));
    std::vector<cpcprof::storage::SymbolFrame> frames = r.symbol_table().expand(chain);
    return frames.empty() ? std::string() : frames.back().function;
}

std::vector<std::string> stack_names(const Reader &r, const SampleCopy &s) {
    std::vector<std::string> names;
    for (uint64_t f : s.frames)
        names.push_back(function_at(r, s.pid, f, s.time_ns));
    return names;
}

// Removes the perf map the jit target leaves for the symbolizer.
struct PerfMapRemover {
    int pid = 0;
    ~PerfMapRemover() {
        if (pid != 0)
            unlink(("/tmp/perf-" + std::to_string(pid) + ".map").c_str());
    }
};

} // namespace

// Both mappings of the executable are in the module table, as one module,
// and the samples in the second are named by its file offsets.
TEST(RecordModules, SecondMappingOfTheProgramsText) {
    TempDir dir;
    std::string out;
    Profile p = record(dir, "dwarf", {SELFMAP_EXE, "1"}, &out);
    ASSERT_TRUE(p) << p.error;
    auto [start, end] = range_printed(out, "remap");
    ASSERT_NE(start, 0u) << out;
    const Reader &r = *p.reader;
    ASSERT_TRUE(r.symbolized());
    const ModuleRecord *copy = nullptr, *loaded = nullptr;
    for (const ModuleRecord &m : r.modules()) {
        if (m.info.start == start)
            copy = &m;
        else if (std::filesystem::path(m.info.path).filename() == "record_selfmap")
            loaded = &m;
    }
    ASSERT_NE(copy, nullptr) << "the second mapping is not in the module table";
    ASSERT_NE(loaded, nullptr);
    EXPECT_EQ(copy->module_id, loaded->module_id) << copy->info.path << " " << loaded->info.path;
    EXPECT_EQ(copy->info.end, end);
    EXPECT_EQ(copy->info.file_offset % 4096, 0u);
    EXPECT_LE(copy->info.file_offset, loaded->info.file_offset);
    size_t in_copy = 0, named = 0;
    for (const SampleCopy &s : p.samples) {
        if (s.frames.empty() || s.frames[0] < start || s.frames[0] >= end)
            continue;
        ++in_copy;
        named += function_at(r, s.pid, s.frames[0], s.time_ns) == "sm_spin";
    }
    std::printf("self-mapped text: %zu of %zu samples in the second mapping, %zu named sm_spin\n",
                in_copy, p.samples.size(), named);
    ASSERT_GT(in_copy, 300u) << "too few samples in the second mapping to judge";
    EXPECT_GE(double(in_copy), 0.9 * double(p.samples.size()));
    EXPECT_GE(double(named), 0.99 * double(in_copy));
}

// Anonymous executable memory is in the module table (as the perf map's
// module), and the names of the program's perf map land on its samples.
TEST(RecordModules, JitCodeNamedByThePerfMap) {
    TempDir dir;
    std::string out;
    Profile p = record(dir, "dwarf", {JIT_EXE, "1"}, &out);
    ASSERT_TRUE(p) << p.error;
    const Reader &r = *p.reader;
    ASSERT_EQ(r.processes().size(), 1u);
    PerfMapRemover remove{r.processes()[0].info.pid};
    auto [start, end] = range_printed(out, "jit");
    ASSERT_NE(start, 0u) << out;
    std::string map = "/tmp/perf-" + std::to_string(remove.pid) + ".map";
    const ModuleRecord *region = nullptr;
    for (const ModuleRecord &m : r.modules())
        if (m.info.start <= start && start < m.info.end)
            region = &m;
    ASSERT_NE(region, nullptr) << "the JIT region is not in the module table";
    EXPECT_EQ(region->info.path, map);
    EXPECT_EQ(region->info.file_offset, region->info.start);
    EXPECT_GE(region->info.end, end);
    EXPECT_EQ(region->has_symbols, std::optional<bool>(true));
    size_t in_jit = 0, hot = 0, outer = 0;
    for (const SampleCopy &s : p.samples) {
        if (s.frames.empty() || s.frames[0] < start || s.frames[0] >= end)
            continue;
        ++in_jit;
        std::string name = function_at(r, s.pid, s.frames[0], s.time_ns);
        hot += name == kHotLoop;
        outer += name == kOuter;
    }
    std::printf("JIT region: %zu of %zu samples, %zu named hot_loop, %zu outer\n", in_jit,
                p.samples.size(), hot, outer);
    ASSERT_GT(in_jit, 300u) << "too few samples in the JIT region to judge";
    EXPECT_GE(double(in_jit), 0.9 * double(p.samples.size()));
    EXPECT_GE(double(hot + outer), 0.99 * double(in_jit));
    EXPECT_GE(double(hot), 0.9 * double(in_jit));
}

// A JIT region that grows in place (its next page made executable): the
// table's entry keeps its start and gets a new end, and the samples in
// the new part are named too.
TEST(RecordModules, JitRegionThatGrows) {
    TempDir dir;
    std::string out;
    Profile p = record(dir, "dwarf", {JIT_EXE, "1", "grow"}, &out);
    ASSERT_TRUE(p) << p.error;
    const Reader &r = *p.reader;
    ASSERT_EQ(r.processes().size(), 1u);
    PerfMapRemover remove{r.processes()[0].info.pid};
    auto [start, end] = range_printed(out, "grown");
    ASSERT_NE(start, 0u) << out;
    size_t in_new = 0, named = 0;
    for (const SampleCopy &s : p.samples) {
        if (s.frames.empty() || s.frames[0] < start || s.frames[0] >= end)
            continue;
        ++in_new;
        named += function_at(r, s.pid, s.frames[0], s.time_ns) == "LazyCompile:*hot_loop2 jit.js:3";
    }
    std::printf("grown JIT region: %zu samples in the new page, %zu named hot_loop2\n", in_new,
                named);
    ASSERT_GT(in_new, 200u) << "too few samples in the new page to judge";
    EXPECT_GE(double(named), 0.99 * double(in_new));
}

// node itself, where installed: with --perf-basic-prof its JIT code is
// named, and every sampled PC lies in a mapping of the table (node maps
// part of its own binary a second time).
TEST(RecordModules, NodeWithPerfBasicProf) {
    if (access("/usr/bin/node", X_OK) != 0)
        GTEST_SKIP() << "node is not installed (/usr/bin/node)";
    TempDir dir;
    std::string out;
    // One second of the process's own CPU time in a JIT-compiled function.
    const char *script = "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
                         "let s = 0; const t = process.cpuUsage();\n"
                         "for (;;) { s += fib(22); const u = process.cpuUsage(t);\n"
                         "  if (u.user + u.system > 1e6) break; }\n"
                         "console.log(s > 0 ? 'ok' : 'no');\n";
    Profile p = record(dir, "dwarf", {"/usr/bin/node", "--perf-basic-prof", "-e", script}, &out);
    ASSERT_TRUE(p) << p.error;
    const Reader &r = *p.reader;
    ASSERT_GE(r.processes().size(), 1u);
    PerfMapRemover remove{r.processes()[0].info.pid};
    size_t leaves = 0, mapped = 0, fib = 0;
    for (const SampleCopy &s : p.samples) {
        if (s.frames.empty() || s.pid != remove.pid)
            continue;
        ++leaves;
        mapped += r.locate(s.pid, s.frames[0], s.time_ns).module_id != 0;
        fib += function_at(r, s.pid, s.frames[0], s.time_ns).find("fib") != std::string::npos;
    }
    std::printf("node: %zu samples, %zu in a mapping of the table, %zu named fib from the "
                "perf map\n",
                leaves, mapped, fib);
    ASSERT_GT(leaves, 300u) << "too few samples of node to judge";
    EXPECT_EQ(mapped, leaves);
    EXPECT_GE(double(fib), 0.5 * double(leaves));
}

// Stacks through the JIT code: its frames keep frame pointers, so fp mode
// walks them to main; dwarf mode through the unwinder's frame-pointer
// fallback where no CFI exists.
static void check_jit_stacks(const char *mode) {
    TempDir dir;
    std::string out;
    Profile p = record(dir, mode, {JIT_EXE, "1"}, &out);
    ASSERT_TRUE(p) << p.error;
    ASSERT_EQ(p.reader->processes().size(), 1u);
    const Reader &r = *p.reader;
    PerfMapRemover remove{r.processes()[0].info.pid};
    size_t hot = 0, through = 0;
    for (const SampleCopy &s : p.samples) {
        std::vector<std::string> names = stack_names(r, s);
        if (names.empty() || names[0] != kHotLoop)
            continue;
        ++hot;
        through += names.size() > 3 && names[1] == kOuter && names[2] == "jt_run" &&
                   std::find(names.begin() + 3, names.end(), "main") != names.end();
    }
    std::printf("%s mode: %zu of %zu samples in hot_loop reach main through outer and jt_run\n",
                mode, through, hot);
    ASSERT_GT(hot, 300u) << mode << ": too few samples in hot_loop to judge";
    EXPECT_GE(double(through), 0.95 * double(hot)) << mode;
}

TEST(RecordModules, StacksThroughJitCodeFp) {
    check_jit_stacks("fp");
}

TEST(RecordModules, StacksThroughJitCodeDwarf) {
    check_jit_stacks("dwarf");
}
