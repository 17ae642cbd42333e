// SPDX-License-Identifier: MIT
// The session's parts, each alone: symbol table, scope index, address
// cache, module map and load bias, demangling, fallback names.
#include "symbolize/src/address_cache.h"
#include "symbolize/src/demangle.h"
#include "symbolize/src/module_map.h"
#include "symbolize/src/scope_index.h"
#include "symbolize/src/symbol_table.h"

#include <gtest/gtest.h>

using namespace cpcprof::symbolize;

TEST(SymbolTable, FindsTheContainingFunctionByBinarySearch) {
    SymbolTable t;
    t.add(0x3000, 0x10, "c", true);
    t.add(0x1000, 0x100, "a", true);
    t.add(0x2000, 0x80, "b", false);
    t.finalize();
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t.find(0xfff), nullptr);
    EXPECT_EQ(*t.find(0x1000), "a");
    EXPECT_EQ(*t.find(0x10ff), "a");
    EXPECT_EQ(t.find(0x1100), nullptr) << "a gap between functions names nothing";
    EXPECT_EQ(*t.find(0x207f), "b");
    EXPECT_EQ(t.find(0x2080), nullptr);
    EXPECT_EQ(*t.find(0x300f), "c");
    EXPECT_EQ(t.find(0x3010), nullptr);
}

TEST(SymbolTable, ZeroSizeSymbolsReachTheNextSymbol) {
    SymbolTable t;
    t.add(0x1000, 0, "asm_a", true);
    t.add(0x1800, 0, "asm_b", true);
    t.finalize();
    EXPECT_EQ(*t.find(0x17ff), "asm_a");
    EXPECT_EQ(*t.find(0x1800), "asm_b");
    EXPECT_EQ(*t.find(0x100000), "asm_b");
}

TEST(SymbolTable, AliasesPreferTheGlobalName) {
    SymbolTable t;
    t.add(0x1000, 0x20, "local_alias", false);
    t.add(0x1000, 0x20, "global_name", true);
    t.finalize();
    EXPECT_EQ(t.size(), 1u);
    EXPECT_EQ(*t.find(0x1010), "global_name");
}

TEST(SymbolTable, NamesAreDemangled) {
    SymbolTable t;
    t.add(0x1000, 0x20, "_ZN4demo5twiceIiEET_S1_", true);
    t.add(0x2000, 0x20, "plain_c", true);
    t.finalize();
    EXPECT_EQ(*t.find(0x1000), "int demo::twice<int>(int)");
    EXPECT_EQ(*t.find(0x1001), "int demo::twice<int>(int)") << "demangled once, kept";
    EXPECT_EQ(*t.find(0x2000), "plain_c");
}

TEST(Demangle, LeavesOtherNamesAlone) {
    EXPECT_EQ(demangle("main"), "main");
    EXPECT_EQ(demangle("_Znotvalid"), "_Znotvalid");
    EXPECT_EQ(demangle("_ZN4demoL13hidden_helperEi"), "demo::hidden_helper(int)");
    EXPECT_EQ(demangle(nullptr), "");
}

TEST(ScopeIndex, InnermostOfNestedScopes) {
    // function 0 [0x100,0x200) > inlined 1 [0x120,0x180) > inlined 2 [0x130,0x140)
    ScopeIndex index({{0x100, 0x200, 0, 1}, {0x120, 0x180, 1, 2}, {0x130, 0x140, 2, 3}});
    EXPECT_FALSE(index.innermost(0xff));
    EXPECT_EQ(index.innermost(0x100), 0u);
    EXPECT_EQ(index.innermost(0x11f), 0u);
    EXPECT_EQ(index.innermost(0x120), 1u);
    EXPECT_EQ(index.innermost(0x130), 2u);
    EXPECT_EQ(index.innermost(0x13f), 2u);
    EXPECT_EQ(index.innermost(0x140), 1u);
    EXPECT_EQ(index.innermost(0x180), 0u);
    EXPECT_EQ(index.innermost(0x1ff), 0u);
    EXPECT_FALSE(index.innermost(0x200));
    EXPECT_EQ(index.segments(), 5u);
}

TEST(ScopeIndex, ScopesWithSeveralRangesAndSiblings) {
    // function 0 has a hot and a cold part; inlined 1 is split across both;
    // function 3 is a sibling right after the hot part.
    ScopeIndex index({{0x100, 0x200, 0, 1},
                      {0x900, 0x950, 0, 1},
                      {0x150, 0x160, 1, 2},
                      {0x910, 0x920, 1, 2},
                      {0x200, 0x300, 3, 1}});
    EXPECT_EQ(index.innermost(0x155), 1u);
    EXPECT_EQ(index.innermost(0x915), 1u);
    EXPECT_EQ(index.innermost(0x905), 0u);
    EXPECT_EQ(index.innermost(0x200), 3u);
    EXPECT_FALSE(index.innermost(0x500));
    EXPECT_FALSE(index.innermost(0x950));
}

TEST(ScopeIndex, EmptyAndDegenerateRanges) {
    EXPECT_FALSE(ScopeIndex().innermost(0));
    ScopeIndex index({{0x100, 0x100, 0, 1}, {0x200, 0x100, 1, 1}});
    EXPECT_FALSE(index.innermost(0x100));
    EXPECT_EQ(index.segments(), 0u);
}

TEST(AddressCache, KeyedByModuleAndAddress) {
    AddressCache cache;
    Location a;
    a.module = "a";
    cache.insert(0, 0x10, a);
    Location b;
    b.module = "b";
    cache.insert(1, 0x10, b);
    ASSERT_NE(cache.find(0, 0x10), nullptr);
    EXPECT_EQ(cache.find(0, 0x10)->module, "a");
    EXPECT_EQ(cache.find(1, 0x10)->module, "b");
    EXPECT_EQ(cache.find(0, 0x11), nullptr);
    EXPECT_EQ(cache.find(AddressCache::no_module, 0x10), nullptr);
    EXPECT_EQ(cache.size(), 2u);
}

TEST(ModuleMap, GroupsMappingsByFileAndFindsOffsets) {
    ModuleMap map({{"/bin/a", "", 0x5000, 0x6000, 0x1000},
                   {"/lib/b.so", "", 0x7000, 0x9000, 0x2000},
                   {"/bin/a", "", 0x6000, 0x7000, 0x3000}});
    ASSERT_EQ(map.modules().size(), 2u);
    EXPECT_EQ(map.modules()[0].path, "/bin/a");
    EXPECT_EQ(map.modules()[0].mappings.size(), 2u);
    EXPECT_FALSE(map.find(0x4fff));
    auto hit = map.find(0x5010);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->module, 0u);
    EXPECT_EQ(hit->file_offset, 0x1010u);
    hit = map.find(0x6010);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->module, 0u);
    EXPECT_EQ(hit->file_offset, 0x3010u);
    hit = map.find(0x8fff);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->module, 1u);
    EXPECT_EQ(hit->file_offset, 0x3fffu);
    EXPECT_FALSE(map.find(0x9000));
}

TEST(ModuleMap, SameFileWithAnotherBuildIdIsAnotherModule) {
    ModuleMap map({{"/bin/a", "aa", 0x5000, 0x6000, 0}, {"/bin/a", "bb", 0x8000, 0x9000, 0}});
    EXPECT_EQ(map.modules().size(), 2u);
}

TEST(LoadBias, PieSharedLibraryAndExecutable) {
    // A PIE: text segment at vaddr 0x1000, offset 0x1000, mapped at 0x5555'5555'5000.
    std::vector<LoadSegment> pie{
        {0, 0, 0x600, false}, {0x1000, 0x1000, 0x2000}, {0x3000, 0x3000, 0x500, false}};
    EXPECT_EQ(load_bias(pie, 0x555555555000, 0x1000), 0x555555554000u);
    // A library whose text vaddr is not its offset (gap after the first segment).
    std::vector<LoadSegment> lib{{0, 0, 0x26000, false}, {0x27000, 0x26000, 0x155000}};
    EXPECT_EQ(load_bias(lib, 0x7f0000027000, 0x26000), 0x7f0000000000u);
    // Text not page-aligned in the file: mapping starts at the page below.
    std::vector<LoadSegment> odd{{0, 0, 0x520, false}, {0x1520, 0x520, 0x800}};
    EXPECT_EQ(load_bias(odd, 0x7f0000001000, 0), 0x7f0000000000u);
    // A non-PIE executable: no bias.
    std::vector<LoadSegment> exec{{0x400000, 0, 0x600, false}, {0x401000, 0x1000, 0x2000}};
    EXPECT_EQ(load_bias(exec, 0x401000, 0x1000), 0u);
    EXPECT_FALSE(load_bias(exec, 0x401000, 0x9000));
}

TEST(FallbackName, ModuleFileNameAndOffset) {
    Location loc;
    loc.module = "/tmp/x/prog";
    loc.module_offset = 0x1234;
    EXPECT_EQ(fallback_name(loc), "prog+0x1234");
    loc.module.clear();
    loc.module_offset = 0xdead;
    EXPECT_EQ(fallback_name(loc), "[unknown]+0xdead");
}
