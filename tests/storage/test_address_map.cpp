// SPDX-License-Identifier: MIT
// AddressMap alone: which mapping held an address of a process at a time.
#include "storage/src/address_map.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>

using namespace cpcprof::storage;

namespace {

ModuleRecord mapping(int pid, int64_t module_id, uint64_t start, uint64_t end, uint64_t offset,
                     int64_t load, std::optional<int64_t> unload = std::nullopt) {
    ModuleRecord m;
    m.info = {pid, "/m" + std::to_string(module_id), "", start, end, offset, load};
    m.unload_ns = unload;
    m.module_id = module_id;
    return m;
}

} // namespace

TEST(AddressMap, LiveMappingGivesModuleAndFileOffset) {
    std::vector<ModuleRecord> maps = {mapping(1, 7, 0x1000, 0x3000, 0x5000, 100)};
    AddressMap map(maps);
    uint32_t c = map.context(1, 150);
    EXPECT_EQ(map.locate(c, 0x1000), (CodeAddress{7, 0x5000}));
    EXPECT_EQ(map.locate(c, 0x2fff), (CodeAddress{7, 0x6fff}));
    EXPECT_EQ(map.locate(c, 0x3000), (CodeAddress{0, 0x3000})); // end is exclusive
    EXPECT_EQ(map.locate(c, 0xfff), (CodeAddress{0, 0xfff}));
    EXPECT_EQ(map.find(c, 0x3000), AddressMap::kNoMapping);
}

TEST(AddressMap, UnknownPidIsContextZero) {
    std::vector<ModuleRecord> maps = {mapping(1, 7, 0x1000, 0x3000, 0, 100)};
    AddressMap map(maps);
    EXPECT_EQ(map.context(2, 150), 0u);
    EXPECT_EQ(map.locate(0, 0x1000), (CodeAddress{0, 0x1000}));
}

TEST(AddressMap, UnloadedAndReloadedElsewhere) {
    // Module 7 at 0x1000 until 200, then module 8 there; module 7 again at 0x9000 from 300.
    std::vector<ModuleRecord> maps = {
        mapping(1, 7, 0x1000, 0x2000, 0, 100, 200),
        mapping(1, 8, 0x1000, 0x2000, 0, 200),
        mapping(1, 7, 0x9000, 0xa000, 0, 300),
    };
    AddressMap map(maps);
    EXPECT_EQ(map.locate(map.context(1, 150), 0x1010), (CodeAddress{7, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 199), 0x1010), (CodeAddress{7, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 200), 0x1010), (CodeAddress{8, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 350), 0x1010), (CodeAddress{8, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 350), 0x9010), (CodeAddress{7, 0x10}));
    // Same span, same context.
    EXPECT_EQ(map.context(1, 210), map.context(1, 290));
    EXPECT_NE(map.context(1, 150), map.context(1, 250));
}

TEST(AddressMap, BeforeItsLoadTheNextLoadedMappingCounts) {
    // A dlopen is reported at the next module scan, after the first samples in it.
    std::vector<ModuleRecord> maps = {
        mapping(1, 7, 0x1000, 0x2000, 0, 100),
        mapping(1, 8, 0x5000, 0x6000, 0, 500),
        mapping(1, 9, 0x5000, 0x6000, 0, 900),
    };
    AddressMap map(maps);
    EXPECT_EQ(map.locate(map.context(1, 50), 0x5010), (CodeAddress{8, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 400), 0x5010), (CodeAddress{8, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 50), 0x1010), (CodeAddress{7, 0x10}));
}

TEST(AddressMap, AfterItsUnloadTheLastUnloadedMappingCounts) {
    std::vector<ModuleRecord> maps = {
        mapping(1, 7, 0x1000, 0x2000, 0, 100, 200),
        mapping(1, 8, 0x1000, 0x2000, 0, 300, 400),
        mapping(1, 9, 0x1000, 0x2000, 0, 900),
    };
    AddressMap map(maps);
    EXPECT_EQ(map.locate(map.context(1, 250), 0x1010), (CodeAddress{7, 0x10}));
    EXPECT_EQ(map.locate(map.context(1, 500), 0x1010), (CodeAddress{8, 0x10}));
}

TEST(AddressMap, OverlappingLiveMappingsTheLatestLoadedWins) {
    std::vector<ModuleRecord> maps = {
        mapping(1, 7, 0x1000, 0x9000, 0, 100),
        mapping(1, 8, 0x2000, 0x3000, 0, 200),
        mapping(1, 9, 0x4000, 0x5000, 0, 50),
    };
    AddressMap map(maps);
    uint32_t c = map.context(1, 300);
    EXPECT_EQ(map.locate(c, 0x2010).module_id, 8);
    EXPECT_EQ(map.locate(c, 0x3010).module_id, 7);
    EXPECT_EQ(map.locate(c, 0x4010).module_id, 7); // 7 was loaded after 9
    EXPECT_EQ(map.locate(c, 0x8fff).module_id, 7);
}

TEST(AddressMap, ProcessesAreSeparate) {
    std::vector<ModuleRecord> maps = {
        mapping(1, 7, 0x400000, 0x500000, 0, 100),
        mapping(2, 8, 0x400000, 0x500000, 0, 100),
    };
    AddressMap map(maps);
    EXPECT_EQ(map.locate(map.context(1, 150), 0x401000).module_id, 7);
    EXPECT_EQ(map.locate(map.context(2, 150), 0x401000).module_id, 8);
    EXPECT_EQ(map.locate(map.context(1, 150), 0x401000).module_id, 7);
}

TEST(AddressMap, ManyMappingsBinarySearch) {
    std::vector<ModuleRecord> maps;
    for (int i = 0; i < 1000; ++i)
        maps.push_back(mapping(1, i + 1, 0x100000 * (i + 1), 0x100000 * (i + 1) + 0x8000, 0, i));
    AddressMap map(maps);
    uint32_t c = map.context(1, 5000);
    for (int i = 0; i < 1000; ++i) {
        EXPECT_EQ(map.locate(c, 0x100000 * (i + 1) + 0x10), (CodeAddress{i + 1, 0x10}));
        EXPECT_EQ(map.locate(c, 0x100000 * (i + 1) + 0x9000).module_id, 0);
    }
}

// The index against the rule of the format, brute force, on random
// overlapping mappings (issue 12: many overlapping mappings).
namespace {

uint32_t by_the_rule(const std::vector<ModuleRecord> &maps, int pid, int64_t t, uint64_t a) {
    // The mapping live at t (latest loaded); else the latest loaded among
    // those unloaded by t; else the first loaded after t.  Ties: the
    // later/earlier index, as (load, index) orders them.
    int best_live = -1, best_earlier = -1, best_later = -1;
    auto key = [&](int i) { return std::make_pair(maps[i].info.load_ns, i); };
    for (int i = 0; i < int(maps.size()); ++i) {
        const ModuleRecord &m = maps[i];
        if (m.info.pid != pid || a < m.info.start || a >= m.info.end)
            continue;
        if (m.info.load_ns > t) {
            if (best_later < 0 || key(i) < key(best_later))
                best_later = i;
        } else if (!m.unload_ns || *m.unload_ns > t) {
            if (best_live < 0 || key(i) > key(best_live))
                best_live = i;
        } else if (best_earlier < 0 || key(i) > key(best_earlier)) {
            best_earlier = i;
        }
    }
    int best = best_live >= 0 ? best_live : best_earlier >= 0 ? best_earlier : best_later;
    return best < 0 ? AddressMap::kNoMapping : uint32_t(best);
}

} // namespace

TEST(AddressMap, OverlappingMappingsFollowTheRule) {
    std::mt19937_64 rng(12);
    for (int round = 0; round < 20; ++round) {
        std::vector<ModuleRecord> maps;
        const int n = 1 + int(rng() % 60);
        for (int i = 0; i < n; ++i) {
            uint64_t start = 0x1000 * (rng() % 40), len = 0x1000 * (1 + rng() % 20);
            int64_t load = int64_t(rng() % 100);
            std::optional<int64_t> unload;
            if (rng() % 2)
                unload = load + int64_t(rng() % 50);
            maps.push_back(mapping(1 + int(rng() % 2), i + 1, start, start + len, 0, load, unload));
        }
        AddressMap map(maps);
        for (int q = 0; q < 400; ++q) {
            int pid = 1 + int(rng() % 2);
            int64_t t = int64_t(rng() % 160) - 5;
            uint64_t a = rng() % (0x1000 * 62);
            uint32_t c = map.context(pid, t);
            ASSERT_EQ(map.find(c, a), by_the_rule(maps, pid, t, a))
                << "round " << round << " pid " << pid << " t " << t << " address " << a;
        }
    }
}
