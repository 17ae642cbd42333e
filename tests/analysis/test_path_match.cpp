// SPDX-License-Identifier: MIT
// analysis::match_paths and PathKeys on two profiles made from folded
// stacks: call paths found in BASE or not, values of an event that has
// another index on each side, modules keyed by basename, and siblings
// sorted by key whatever the order the trees made them in.
#include "tests/support/folded_profile.h"
#include "tests/support/temp_dir.h"

#include "profiler/analysis/path_match.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>

namespace {

using namespace cpcprof::analysis;
using cpcprof::test::make_folded_profile;
using cpcprof::test::TempDir;

std::unique_ptr<Query> open_query(const std::string &path) {
    std::string error;
    auto q = Query::open(path, {}, &error);
    EXPECT_TRUE(q) << error;
    return q;
}

// A path's call path as names ("main;b"), from its keys.
std::string path_name(const PathMatch &m, const PathKeys &keys, uint32_t p) {
    std::vector<std::string> names;
    for (; p != 0; p = m.parent[p])
        names.push_back(keys.name(m.key[p]));
    std::reverse(names.begin(), names.end());
    std::string out;
    for (const std::string &n : names) {
        if (!out.empty())
            out += ';';
        out += n;
    }
    return out;
}

struct PathMatchTest : ::testing::Test {
    TempDir dir{"cpcprof-pathmatch"};
};

TEST_F(PathMatchTest, MatchesCallPathsOfBothProfiles) {
    // NEW samples cycles (index 0); BASE samples instructions and counts
    // cycles (index 1).  Programs of one basename in other folders.
    auto now = open_query(
        make_folded_profile(dir.path(), {"main;c 2 1000 0", "main;b;x 4 1000 0", "main;a 3 1000 0"},
                            {{"cycles", 1000}, {"instructions"}}, "now.cpcprof", "/opt/v2/prog"));
    auto base = open_query(make_folded_profile(
        dir.path(), {"main;a 5 100 2000", "main;b 1 100 2000", "main;d 2 100 2000"},
        {{"instructions", 100}, {"cycles"}}, "base.cpcprof", "/opt/v1/prog"));
    ASSERT_TRUE(now && base);
    PathKeys keys;
    std::vector<uint32_t> now_keys = keys.of(*now), base_keys = keys.of(*base);
    EXPECT_EQ(keys.size(), 6u); // main a b c d x
    EXPECT_NE(keys.find("main", "prog"), PathKeys::kNone);
    EXPECT_EQ(keys.find("main", "/opt/v1/prog"), PathKeys::kNone); // keyed by basename

    CallTree now_tree = CallTree::top_down(*now), base_tree = CallTree::top_down(*base);
    PathMatch m = match_paths(now_tree, now_keys, {0}, base_tree, base_keys, {1});
    ASSERT_EQ(m.events, 1u);
    ASSERT_EQ(m.paths(), 6u); // the root, main, main;c, main;b, main;b;x, main;a
    ASSERT_EQ(m.path_of_node.size(), now_tree.nodes().size());

    std::map<std::string, uint32_t> path;
    for (uint32_t p = 1; p < m.paths(); ++p)
        path[path_name(m, keys, p)] = p;
    ASSERT_EQ(path.size(), 5u);
    auto now_values = [&](const char *name) {
        uint32_t p = path.at(name);
        return std::pair{m.now_self[p], m.now_total[p]};
    };
    auto base_values = [&](const char *name) {
        uint32_t p = path.at(name);
        return std::pair{m.base_self[p], m.base_total[p]};
    };
    EXPECT_EQ(m.now_total[0], 9000u);
    EXPECT_EQ(m.base_total[0], 16000u); // BASE's cycles, not its instructions
    EXPECT_EQ(now_values("main"), (std::pair<uint64_t, uint64_t>{0, 9000}));
    EXPECT_EQ(now_values("main;b;x"), (std::pair<uint64_t, uint64_t>{4000, 4000}));
    EXPECT_EQ(base_values("main"), (std::pair<uint64_t, uint64_t>{0, 16000}));
    EXPECT_EQ(base_values("main;a"), (std::pair<uint64_t, uint64_t>{10000, 10000}));
    EXPECT_EQ(base_values("main;b"), (std::pair<uint64_t, uint64_t>{2000, 2000}));
    // BASE has no main;c and no main;b;x; its main;d is not NEW's.
    EXPECT_TRUE(m.in_base[0]);
    EXPECT_TRUE(m.in_base[path.at("main;a")]);
    EXPECT_TRUE(m.in_base[path.at("main;b")]);
    EXPECT_FALSE(m.in_base[path.at("main;c")]);
    EXPECT_FALSE(m.in_base[path.at("main;b;x")]);
    EXPECT_EQ(base_values("main;c"), (std::pair<uint64_t, uint64_t>{0, 0}));

    for (size_t i = 1; i < now_tree.nodes().size(); ++i) {
        const CallTree::Node &n = now_tree.nodes()[i];
        EXPECT_EQ(m.key[m.path_of_node[i]], now_keys[n.function]);
        EXPECT_EQ(m.parent[m.path_of_node[i]], m.path_of_node[n.parent]);
    }

    // NEW made main's children in the order c, b, a; by key they are a, b, c.
    std::vector<std::vector<uint32_t>> kids = children_by_key(m, keys);
    ASSERT_EQ(kids[0], std::vector<uint32_t>{path.at("main")});
    EXPECT_EQ(kids[path.at("main")],
              (std::vector<uint32_t>{path.at("main;a"), path.at("main;b"), path.at("main;c")}));
    EXPECT_TRUE(kids[path.at("main;b;x")].empty());
}

TEST(PathMatch, EmptyWhenNothingWasMatched) {
    PathMatch m;
    EXPECT_EQ(m.paths(), 0u);
    EXPECT_TRUE(m.path_of_node.empty());
}

} // namespace
