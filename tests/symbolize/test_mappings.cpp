// SPDX-License-Identifier: MIT
// Code outside the loader's view: a file mapped a second time at an
// unrelated address (a program that maps its own code again, as node
// does), and JIT code named by a perf map (/tmp/perf-PID.map).
#include "tests/symbolize/helpers.h"

#include "symbolize/symbolizer.h"

#include "symbolize/src/perf_map.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace cpcprof::symbolize;

namespace {

std::vector<std::string> names(const Location &loc) {
    std::vector<std::string> out;
    for (const Frame &f : loc.frames)
        out.push_back(f.function);
    return out;
}

const Mapping &mapping_of(const symtest::Run &run, uint64_t address) {
    for (const Mapping &m : run.mappings)
        if (address >= m.start && address < m.end)
            return m;
    throw std::runtime_error("no mapping holds the address");
}

} // namespace

TEST(PerfMap, ParsesNodeLinesWithSpacesAndPrefixes) {
    PerfMap map = PerfMap::parse("3ef414a4e8c0 1c LazyCompile:*fib /x.js:3\n"
                                 "0x1000 0x10 Builtin: ArgumentsAdaptorTrampoline\r\n"
                                 "not a line\n"
                                 "2000 0 zero-sized\n"
                                 "3000 10\n"
                                 "4000 10 last without newline");
    EXPECT_EQ(map.size(), 3u);
    ASSERT_NE(map.find(0x3ef414a4e8c0), nullptr);
    EXPECT_EQ(*map.find(0x3ef414a4e8c0 + 0x1b), "LazyCompile:*fib /x.js:3");
    EXPECT_EQ(map.find(0x3ef414a4e8c0 + 0x1c), nullptr);
    ASSERT_NE(map.find(0x100f), nullptr);
    EXPECT_EQ(*map.find(0x100f), "Builtin: ArgumentsAdaptorTrampoline");
    EXPECT_EQ(map.find(0x2000), nullptr);
    EXPECT_EQ(map.find(0x3000), nullptr);
    ASSERT_NE(map.find(0x4000), nullptr);
    EXPECT_EQ(*map.find(0x4000), "last without newline");
}

// Code moved or replaced: the later line names the address.
TEST(PerfMap, LaterLinesWinWhereTheyOverlap) {
    PerfMap map = PerfMap::parse("1000 100 old\n"
                                 "1040 10 new inside\n"
                                 "10f0 20 new across the end\n"
                                 "0f00 108 new across the start\n");
    auto at = [&](uint64_t a) { return map.find(a) ? *map.find(a) : std::string("-"); };
    EXPECT_EQ(at(0xf00), "new across the start");
    EXPECT_EQ(at(0x1007), "new across the start");
    EXPECT_EQ(at(0x1008), "old");
    EXPECT_EQ(at(0x1040), "new inside");
    EXPECT_EQ(at(0x1050), "old");
    EXPECT_EQ(at(0x10ef), "old");
    EXPECT_EQ(at(0x10f0), "new across the end");
    EXPECT_EQ(at(0x110f), "new across the end");
    EXPECT_EQ(at(0x1110), "-");
}

TEST(PerfMap, RecognisesPerfMapPaths) {
    EXPECT_TRUE(PerfMap::is_perf_map_path("/tmp/perf-1234.map"));
    EXPECT_TRUE(PerfMap::is_perf_map_path("perf-1.map"));
    EXPECT_FALSE(PerfMap::is_perf_map_path("/tmp/perf-.map"));
    EXPECT_FALSE(PerfMap::is_perf_map_path("/tmp/perf-12a.map"));
    EXPECT_FALSE(PerfMap::is_perf_map_path("/usr/lib/perf-1234.map.so"));
    EXPECT_FALSE(PerfMap::is_perf_map_path("/usr/bin/node"));
}

// Anonymous executable memory, named by the process's perf map: offsets
// are addresses (the mapping's file offset is its start).
TEST(Session, JitCodeNamedByThePerfMap) {
    symtest::TempDir dir;
    std::string path = dir.path() + "/perf-4242.map";
    std::ofstream(path) << "7f0000001000 40 LazyCompile:*hot /app.js:7\n"
                           "7f0000001040 20 Builtin: CallFunction\n";
    const uint64_t start = 0x7f0000000000, end = 0x7f0000010000;
    Session session({{path, "", start, end, start}});
    Location hot = session.resolve(0x7f0000001010, false);
    EXPECT_EQ(names(hot), std::vector<std::string>{"LazyCompile:*hot /app.js:7"});
    EXPECT_EQ(hot.module, path);
    EXPECT_EQ(hot.module_offset, 0x7f0000001010u);
    // A return address is looked up inside its call.
    EXPECT_EQ(names(session.resolve(0x7f0000001040, true)), names(hot));
    EXPECT_EQ(names(session.resolve(0x7f0000001041, true)),
              std::vector<std::string>{"Builtin: CallFunction"});
    Location outside = session.resolve(0x7f0000005000, false);
    EXPECT_FALSE(outside.has_symbols);
    EXPECT_EQ(fallback_name(outside), "perf-4242.map+0x7f0000005000");
    EXPECT_TRUE(session.modules_without_symbols().empty());
}

TEST(Session, MissingPerfMapLeavesFallbackNames) {
    symtest::TempDir dir;
    std::string path = dir.path() + "/perf-4243.map";
    const uint64_t start = 0x7f0000000000;
    Session session({{path, "", start, start + 0x1000, start}});
    Location loc = session.resolve(start + 0x10, false);
    EXPECT_FALSE(loc.has_symbols);
    EXPECT_EQ(fallback_name(loc), "perf-4243.map+0x7f0000000010");
    EXPECT_EQ(session.modules_without_symbols(), std::vector<std::string>{path});
}

class SecondMapping : public ::testing::TestWithParam<const char *> {};

// The executable's text mapped again at an unrelated address, above or
// below the first: an address there resolves through its file offset to
// what the same offset is in the first mapping.
TEST_P(SecondMapping, ResolvesAsTheFirst) {
    symtest::Run run = symtest::run_program(GetParam());
    uint64_t ret = run.probes.at("leaf");
    const Mapping text = mapping_of(run, ret);
    for (uint64_t copy : {uint64_t(0x6f1200000000), uint64_t(0x100000)}) {
        std::vector<Mapping> mappings = run.mappings;
        mappings.push_back(
            {text.path, text.build_id, copy, copy + (text.end - text.start), text.file_offset});
        Session session(mappings);
        Location first = session.resolve(ret, true);
        Location second = session.resolve(ret - text.start + copy, true);
        ASSERT_TRUE(first.has_symbols);
        EXPECT_EQ(names(second), names(first)) << std::hex << "copy at 0x" << copy;
        ASSERT_FALSE(second.frames.empty());
        EXPECT_EQ(second.frames[0].line, first.frames[0].line);
        EXPECT_EQ(second.module, first.module);
        EXPECT_EQ(second.module_offset, first.module_offset);
        uint64_t outer = run.functions.at("outer");
        EXPECT_EQ(names(session.resolve(outer - text.start + copy, false)),
                  names(session.resolve(outer, false)));
    }
}

INSTANTIATE_TEST_SUITE_P(Symbolize, SecondMapping, ::testing::Values(SYMTEST_PIE, SYMTEST_NOPIE),
                         [](const auto &info) {
                             return std::string(info.index == 0 ? "pie" : "nopie");
                         });
