// SPDX-License-Identifier: MIT
// gui/model without Qt: trees, hotspot rows, search and derived columns
// of profiles built from folded stacks, and of the storage tests' known
// profile, checked against storage's figures and `cpcprof report`'s.
#include "tests/gui/model/model_test_util.h"

#include "gui/model/cost_columns.h"
#include "gui/model/cost_tree.h"
#include "gui/model/search.h"
#include "profiler/analysis/hotspots.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using cpcprof::analysis::Cost;

// cycles samples (period 10); instructions, cache-misses and
// cache-references count.  a recurses in the last line.
// Lines: one sample each (COUNT 1), its value of every event.
const std::vector<std::string> kFolded = {
    "main:3;a:2;b:1 1 10 5 1 10", "main:3;a:2;b:1 1 10 5 1 10", "main:3;a:2;c:4 1 10 20 0 4",
    "main:3;c:4 1 10 10 2 8", "main:3;a:2;a:2;b:1 1 10 5 0 2"};

struct FoldedModel : ProfileTest {
    void SetUp() override {
        ProfileTest::SetUp();
        load_folded({"cycles", "instructions", "cache-misses", "cache-references"}, kFolded);
    }
};

TEST_F(FoldedModel, TopDownTreeHasSelfAndTotalOfEveryEvent) {
    CostTree t = top_down_tree(profile);
    ASSERT_TRUE(t.tree) << t.error;
    EXPECT_EQ(t.node(0).total.samples, 5u);
    ASSERT_EQ(t.child_count(0), 1u);
    uint32_t main = t.child(0, 0);
    EXPECT_EQ(t.name(main), "main");
    EXPECT_EQ(t.node(main).total.values, (std::vector<uint64_t>{50, 45, 4, 34}));
    EXPECT_EQ(t.node(main).self.samples, 0u);
    uint32_t a = child_named(t, main, "a");
    ASSERT_NE(a, 0u);
    EXPECT_EQ(t.node(a).total.samples, 4u);
    EXPECT_EQ(t.node(a).total.values, (std::vector<uint64_t>{40, 35, 2, 26}));
    uint32_t ab = child_named(t, a, "b");
    EXPECT_EQ(t.node(ab).self.values, (std::vector<uint64_t>{20, 10, 2, 20}));
    EXPECT_EQ(t.node(ab).total.values, t.node(ab).self.values);
    uint32_t aa = child_named(t, a, "a");
    EXPECT_EQ(t.node(aa).total.samples, 1u);
    EXPECT_EQ(t.node(child_named(t, aa, "b")).self.values, (std::vector<uint64_t>{10, 5, 0, 2}));
    uint32_t mc = child_named(t, main, "c");
    EXPECT_EQ(t.node(mc).self.values, (std::vector<uint64_t>{10, 10, 2, 8}));
    EXPECT_EQ(path_to(t, ab), (std::vector<uint32_t>{main, a, ab}));
}

TEST_F(FoldedModel, BottomUpTreeIsInverted) {
    CostTree t = bottom_up_tree(profile);
    ASSERT_TRUE(t.tree) << t.error;
    EXPECT_EQ(t.node(0).total.samples, 5u);
    uint32_t b = child_named(t, 0, "b"), c = child_named(t, 0, "c");
    ASSERT_NE(b, 0u);
    ASSERT_NE(c, 0u);
    EXPECT_EQ(t.child_count(0), 2u);
    EXPECT_EQ(t.node(b).total.values, (std::vector<uint64_t>{30, 15, 2, 22}));
    EXPECT_EQ(t.node(b).self.values, t.node(b).total.values);
    EXPECT_EQ(t.node(c).total.samples, 2u);
    // b's callers: a (3 samples), whose callers are main (2) and a (1).
    uint32_t ba = child_named(t, b, "a");
    EXPECT_EQ(t.child_count(b), 1u);
    EXPECT_EQ(t.node(ba).total.samples, 3u);
    EXPECT_EQ(t.node(child_named(t, ba, "main")).total.samples, 2u);
    EXPECT_EQ(t.node(child_named(t, ba, "a")).total.samples, 1u);
    // c's callers: a and main.
    EXPECT_EQ(t.node(child_named(t, c, "a")).total.samples, 1u);
    EXPECT_EQ(t.node(child_named(t, c, "main")).total.samples, 1u);
}

TEST_F(FoldedModel, CallersAndCalleesOfAFunction) {
    uint32_t a = function_named("a");
    CostTree callees = callees_tree(profile, a);
    ASSERT_TRUE(callees.tree) << callees.error;
    ASSERT_EQ(callees.child_count(0), 1u);
    uint32_t root = callees.child(0, 0);
    EXPECT_EQ(callees.name(root), "a");
    EXPECT_EQ(callees.node(root).total.samples, 4u); // once per sample, from the outermost a
    EXPECT_EQ(callees.node(child_named(callees, root, "b")).total.samples, 2u);
    EXPECT_EQ(callees.node(child_named(callees, root, "a")).total.samples, 1u);
    CostTree callers = callers_tree(profile, function_named("b"));
    ASSERT_TRUE(callers.tree) << callers.error;
    root = callers.child(0, 0);
    EXPECT_EQ(callers.node(root).total.values, (std::vector<uint64_t>{30, 15, 2, 22}));
    EXPECT_EQ(callers.node(child_named(callers, root, "a")).total.samples, 3u);
    CostTree none = callers_tree(profile, 999);
    EXPECT_FALSE(none.tree);
    EXPECT_NE(none.error.find("no function"), std::string::npos) << none.error;
    EXPECT_EQ(heaviest_node(callers, function_named("a")), child_named(callers, root, "a"));
}

TEST_F(FoldedModel, HotspotRowsCountRecursionOnce) {
    std::vector<analysis::HotspotRow> rows =
        analysis::hotspot_rows(*profile->query, analysis::GroupBy::function);
    ASSERT_EQ(rows.size(), 4u);
    auto row = [&](const char *name) -> const analysis::HotspotRow & {
        for (const auto &r : rows)
            if (profile->query->functions()[r.function_index].name == name)
                return r;
        ADD_FAILURE() << "no row " << name;
        return rows[0];
    };
    EXPECT_EQ(row("a").total.samples, 4u);
    EXPECT_EQ(row("a").total.values[0], 40u);
    EXPECT_EQ(row("a").self.samples, 0u);
    EXPECT_EQ(row("b").self.values, (std::vector<uint64_t>{30, 15, 2, 22}));
    EXPECT_EQ(row("c").total.values, (std::vector<uint64_t>{20, 30, 2, 12}));
    EXPECT_EQ(analysis::location(row("b")), "/src/folded.c:" + std::to_string(row("b").line));
    EXPECT_EQ(profile->query->functions()[row("b").function_index].module, "/opt/folded");
}

TEST_F(FoldedModel, DerivedColumnsAreReportRatios) {
    CostColumns c = cost_columns(*profile->query);
    // self and total of 4 events, then CPI, misses per 1k instructions and
    // miss ratio over self and total samples.
    ASSERT_EQ(c.derived.size(), 3u);
    ASSERT_EQ(c.columns.size(), 8u + 6u);
    EXPECT_EQ(c.columns[0].header, "self:cycles");
    EXPECT_EQ(c.columns[3].header, "total:instructions");
    EXPECT_EQ(c.columns[8].header, "CPI");
    EXPECT_EQ(c.columns[9].header, "total:CPI");
    EXPECT_EQ(c.columns[3].label, "total:instructions");
    CostTree t = top_down_tree(profile);
    uint32_t main = t.child(0, 0), a = child_named(t, main, "a");
    const auto &n = t.node(a);
    EXPECT_DOUBLE_EQ(*column_value(c, c.columns[9], n.self, n.total), 40.0 / 35.0);
    EXPECT_FALSE(column_value(c, c.columns[8], n.self, n.total)); // no self instructions
    EXPECT_DOUBLE_EQ(*column_value(c, c.columns[11], n.self, n.total), 2.0 / 35.0 * 1000);
    EXPECT_DOUBLE_EQ(*column_value(c, c.columns[13], n.self, n.total), 2.0 / 26.0);
    EXPECT_EQ(column_samples(c.columns[13], n.self, n.total), 4u);
    EXPECT_DOUBLE_EQ(*column_share(c, c.columns[1], n.self, n.total), 40.0 / 50.0);
    EXPECT_FALSE(column_share(c, c.columns[8], n.self, n.total));
    EXPECT_EQ(event_column(c, 1, CostColumn::Kind::Total), 3);
    EXPECT_EQ(event_column(c, 9, CostColumn::Kind::Total), -1);
}

// Headers stay readable with long event names: the PMU prefix goes, then
// the middle; short names and every column's full header are kept.
TEST(CostColumnHeaders, LongEventNamesAreShortenedInTheMiddle) {
    EXPECT_EQ(short_event_name("cpu-clock"), "cpu-clock");
    EXPECT_EQ(short_event_name("context-switches"), "context-switches");
    EXPECT_EQ(short_event_name("skl::L1D:REPLACEMENT"), "L1D:REPLACEMENT");
    std::string s = short_event_name("perf::PERF_COUNT_HW_CACHE_MISSES");
    EXPECT_EQ(s, "PERF_COUN\u2026E_MISSES");
    EXPECT_EQ(s.size() - 2, kShortName) << "the ellipsis is 3 bytes, one character";
    EXPECT_EQ(short_event_name("L1-dcache-load-misses-and-more"), "L1-dcache\u2026and-more");
}

TEST_F(FoldedModel, SearchCountsEachSampleOnce) {
    const cpcprof::analysis::Query &q = *profile->query;
    std::string error;
    auto m = NameMatcher::make("^(a|b)$", true, &error);
    ASSERT_TRUE(m) << error;
    SearchResult r = search(q, *m);
    EXPECT_EQ(r.functions.size(), 2u);
    EXPECT_EQ(r.total.samples, 4u); // not 4 (a) + 3 (b) + the recursion
    EXPECT_EQ(r.total.values[0], 40u);
    EXPECT_DOUBLE_EQ(*r.share(q, 0), 0.8);
    // Substrings ignore case; "A" is in main and a.
    auto sub = NameMatcher::make("A", false, &error);
    SearchResult rs = search(q, *sub);
    EXPECT_EQ(rs.functions.size(), 2u);
    EXPECT_EQ(rs.total.samples, 5u);
    EXPECT_DOUBLE_EQ(*rs.share(q, 0), 1.0);
    EXPECT_FALSE(rs.share(q, 7));
    EXPECT_FALSE(NameMatcher::make("(", true, &error));
    EXPECT_NE(error.find("invalid regular expression"), std::string::npos) << error;
}

TEST_F(FoldedModel, SearchKeepsAncestorsOfMatches) {
    std::string error;
    SearchResult r = search(*profile->query, *NameMatcher::make("c", false, &error));
    EXPECT_EQ(r.total.samples, 2u);
    CostTree t = top_down_tree(profile);
    std::vector<uint8_t> keep = keep_nodes(t, r.function_matches);
    uint32_t main = t.child(0, 0), a = child_named(t, main, "a");
    EXPECT_TRUE(keep[main]);
    EXPECT_TRUE(keep[a]);
    EXPECT_TRUE(keep[child_named(t, a, "c")]);
    EXPECT_TRUE(keep[child_named(t, main, "c")]);
    EXPECT_FALSE(keep[child_named(t, a, "b")]);
    EXPECT_FALSE(keep[child_named(t, a, "a")]);
}

TEST_F(FoldedModel, MatchedTotalOfATreeIsTheSearchTotal) {
    const cpcprof::analysis::Query &q = *profile->query;
    std::string error;
    for (const char *pattern : {"^(a|b)$", "^a$", "b", "c", "main", "zzz"}) {
        SearchResult r = search(q, *NameMatcher::make(pattern, true, &error));
        for (CostTree t : {top_down_tree(profile), bottom_up_tree(profile)}) {
            Cost m = matched_total(t, r.function_matches);
            EXPECT_EQ(m.samples, r.total.samples) << pattern;
            EXPECT_EQ(m.values, r.total.values) << pattern;
        }
    }
    // Under a node: main > a holds 2 samples of b (and 1 more under a > a).
    CostTree t = top_down_tree(profile);
    uint32_t a = child_named(t, t.child(0, 0), "a");
    SearchResult b = search(q, *NameMatcher::make("^b$", true, &error));
    EXPECT_EQ(matched_total(t, b.function_matches, a).samples, 3u);
    EXPECT_EQ(matched_total(t, b.function_matches, child_named(t, a, "a")).samples, 1u);
    std::vector<uint8_t> m = matching_nodes(t, b.function_matches);
    EXPECT_EQ(std::count(m.begin(), m.end(), 1), 2); // main > a > b, main > a > a > b
    EXPECT_TRUE(m[child_named(t, a, "b")]);
}

TEST_F(ProfileTest, InlinedFramesAreNodesMarkedInline) {
    load_folded({"cycles"}, {"main:2;f:1;g:1[inline] 1 10", "main:2;f:3 1 10"});
    CostTree t = top_down_tree(profile);
    uint32_t f = child_named(t, t.child(0, 0), "f");
    uint32_t g = child_named(t, f, "g");
    ASSERT_NE(g, 0u);
    EXPECT_TRUE(t.node(g).inlined);
    EXPECT_FALSE(t.node(f).inlined);
    EXPECT_EQ(t.node(f).total.values[0], 20u);
    EXPECT_EQ(t.node(f).self.values[0], 10u);
}

// Every function's search total is its total, and the trees' roots sum to
// the kept total, on the storage tests' known profile.
TEST_F(ProfileTest, KnownProfileSearchAgreesWithFunctionTotals) {
    load_known();
    const cpcprof::analysis::Query &q = *profile->query;
    for (uint32_t f = 0; f < q.functions().size(); ++f) {
        std::string error;
        auto m = NameMatcher::make("^" + regex_quote(q.functions()[f].name) + "$", true, &error);
        ASSERT_TRUE(m) << error;
        SearchResult r = search(q, *m);
        if (f == q.truncated_function())
            continue; // a picture's root, in no stack
        EXPECT_EQ(r.total.samples, q.function_total()[f].samples) << q.functions()[f].name;
        EXPECT_EQ(r.total.values, q.function_total()[f].values) << q.functions()[f].name;
        for (CostTree t : {top_down_tree(profile), bottom_up_tree(profile)})
            EXPECT_EQ(matched_total(t, r.function_matches).values, r.total.values)
                << q.functions()[f].name;
    }
    std::string error;
    SearchResult rec = search(q, *NameMatcher::make("recurse", false, &error));
    EXPECT_EQ(rec.total.samples, 4u); // 3 + the truncated one, recursion counted once
    for (CostTree t : {top_down_tree(profile), bottom_up_tree(profile)}) {
        ASSERT_TRUE(t.tree) << t.error;
        Cost sum{0, std::vector<uint64_t>(q.events().size())};
        for (size_t i = 0; i < t.child_count(0); ++i)
            sum.add(t.node(t.child(0, i)).total);
        EXPECT_EQ(sum.samples, q.total().samples);
        EXPECT_EQ(sum.values, q.total().values);
    }
}

} // namespace
} // namespace cpcprof::guitest
