// SPDX-License-Identifier: MIT
// The one flame-graph layout (profiler/analysis/flame_layout.h) on trees
// written by hand: siblings in each order, packed left to right, the
// share threshold at its edge and for several weights, zoom with its
// ancestors, and a tree deeper than any call stack.
#include "profiler/analysis/flame_layout.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace cpcprof::test {
namespace {

using analysis::FlameLayout;
using analysis::FlamePlace;
using analysis::SiblingOrder;

// Nodes added as (parent, name, weights...); node 0 is "all".
class HandTree final : public analysis::FlameTree {
  public:
    explicit HandTree(std::vector<uint64_t> root) { add_node(0, "all", std::move(root)); }
    uint32_t add(uint32_t parent, std::string name, std::vector<uint64_t> w) {
        uint32_t id = add_node(parent, std::move(name), std::move(w));
        kids_[parent].push_back(id);
        return id;
    }
    uint32_t parent(uint32_t node) const override { return parent_[node]; }
    const std::vector<uint32_t> &children(uint32_t node) const override { return kids_[node]; }
    size_t nodes() const override { return names_.size(); }
    size_t weights() const override { return weights_[0].size(); }
    uint64_t weight(uint32_t node, size_t k) const override { return weights_[node][k]; }
    std::string_view name(uint32_t node) const override { return names_[node]; }

  private:
    uint32_t add_node(uint32_t parent, std::string name, std::vector<uint64_t> w) {
        parent_.push_back(parent);
        names_.push_back(std::move(name));
        weights_.push_back(std::move(w));
        kids_.emplace_back();
        return uint32_t(names_.size() - 1);
    }
    std::vector<uint32_t> parent_;
    std::vector<std::string> names_;
    std::vector<std::vector<uint64_t>> weights_;
    std::vector<std::vector<uint32_t>> kids_;
};

// "name@depth" -> {x, width}, and the names in the order placed.
struct Placed {
    std::map<std::string, std::pair<uint64_t, uint64_t>> at;
    std::vector<std::string> order;
};

Placed placed(const HandTree &t, const FlameLayout &l) {
    Placed p;
    for (const FlamePlace &f : l.places) {
        std::string key = std::string(t.name(f.node)) + "@" + std::to_string(f.depth);
        p.at[key] = {f.x, f.width};
        p.order.push_back(key);
    }
    return p;
}

// all 100: main 90 (zeta 50 > z1 50, alpha 30, mid 10), [cut] 10
struct Sample {
    HandTree t{{100}};
    uint32_t main = t.add(0, "main", {90});
    uint32_t zeta = t.add(main, "zeta", {50});
    uint32_t z1 = t.add(zeta, "z1", {50});
    uint32_t alpha = t.add(main, "alpha", {30});
    uint32_t mid = t.add(main, "mid", {10});
    uint32_t cut = t.add(0, "[cut]", {10});
};

TEST(FlameLayout, SiblingsByNameArePackedLeftToRight) {
    Sample s;
    Placed p = placed(s.t, lay_out_flame(s.t, {.order = SiblingOrder::ByName}));
    std::vector<std::string> want = {"all@0", "[cut]@1", "main@1", "alpha@2",
                                     "mid@2", "zeta@2",  "z1@3"};
    EXPECT_EQ(p.order, want);
    EXPECT_EQ(p.at["[cut]@1"], (std::pair<uint64_t, uint64_t>{0, 10}));
    EXPECT_EQ(p.at["main@1"], (std::pair<uint64_t, uint64_t>{10, 90}));
    EXPECT_EQ(p.at["alpha@2"], (std::pair<uint64_t, uint64_t>{10, 30}));
    EXPECT_EQ(p.at["mid@2"], (std::pair<uint64_t, uint64_t>{40, 10}));
    EXPECT_EQ(p.at["zeta@2"], (std::pair<uint64_t, uint64_t>{50, 50}));
    EXPECT_EQ(p.at["z1@3"], (std::pair<uint64_t, uint64_t>{50, 50}));
}

TEST(FlameLayout, SiblingsByCostThenAsGiven) {
    Sample s;
    Placed cost = placed(s.t, lay_out_flame(s.t, {.order = SiblingOrder::ByCost}));
    std::vector<std::string> want = {"all@0",   "main@1", "zeta@2", "z1@3",
                                     "alpha@2", "mid@2",  "[cut]@1"};
    EXPECT_EQ(cost.order, want);
    EXPECT_EQ(cost.at["[cut]@1"].first, 90u);
    Placed given = placed(s.t, lay_out_flame(s.t, {.order = SiblingOrder::Given}));
    want = {"all@0", "main@1", "zeta@2", "z1@3", "alpha@2", "mid@2", "[cut]@1"};
    EXPECT_EQ(given.order, want);
    EXPECT_EQ(given.at["mid@2"].first, 80u);
}

TEST(FlameLayout, ThresholdKeepsTheEdgeAndDropsBelowWithTheSubtree) {
    Sample s;
    // 10 of 100 is exactly 10 %: kept; at 10.5 % mid and [cut] go, and
    // the rest of main's children close up.
    Placed edge = placed(s.t, lay_out_flame(s.t, {.min_share = 0.10}));
    EXPECT_TRUE(edge.at.count("mid@2"));
    EXPECT_TRUE(edge.at.count("[cut]@1"));
    Placed above = placed(s.t, lay_out_flame(s.t, {.min_share = 0.105}));
    EXPECT_FALSE(above.at.count("mid@2"));
    EXPECT_FALSE(above.at.count("[cut]@1"));
    EXPECT_EQ(above.at["main@1"].first, 0u);
    EXPECT_EQ(above.at["zeta@2"].first, 30u);
    // zeta goes at 51 %, and z1 with it although nothing else weighs it.
    Placed half = placed(s.t, lay_out_flame(s.t, {.min_share = 0.51}));
    EXPECT_FALSE(half.at.count("zeta@2"));
    EXPECT_FALSE(half.at.count("z1@3"));
    EXPECT_EQ(half.order.size(), 2u); // all, main
}

TEST(FlameLayout, NodeKeptWhenAnyWeightReachesTheShare) {
    // Weight 1: only b has any.  Weight 2: the root has none, so it is
    // ignored (rather than keeping everything at share 0 of 0).
    HandTree t({100, 10, 0});
    t.add(0, "a", {95, 0, 0});
    t.add(0, "b", {5, 10, 0});
    t.add(0, "c", {0, 0, 0});
    Placed p = placed(t, lay_out_flame(t, {.min_share = 0.5}));
    EXPECT_TRUE(p.at.count("a@1"));
    EXPECT_TRUE(p.at.count("b@1")) << "all of weight 1";
    EXPECT_FALSE(p.at.count("c@1"));
    EXPECT_EQ(p.at["b@1"], (std::pair<uint64_t, uint64_t>{95, 5})) << "width by the first weight";
    // With no share asked, nodes that weigh nothing are still left out.
    EXPECT_FALSE(placed(t, lay_out_flame(t, {})).at.count("c@1"));
}

TEST(FlameLayout, ZoomSpansTheWidthUnderItsAncestors) {
    Sample s;
    FlameLayout l = lay_out_flame(s.t, {.zoom = s.zeta, .min_share = 0.5});
    ASSERT_EQ(l.places.size(), 4u);
    EXPECT_EQ(l.places[0].node, 0u);
    EXPECT_EQ(l.places[1].node, s.main);
    EXPECT_TRUE(l.places[0].ancestor && l.places[1].ancestor);
    EXPECT_EQ(l.places[1].width, 50u) << "ancestors as wide as the zoomed node";
    EXPECT_EQ(l.places[2].node, s.zeta);
    EXPECT_FALSE(l.places[2].ancestor);
    EXPECT_EQ(l.places[2].parent, 1);
    EXPECT_EQ(l.places[3].node, s.z1) << "z1 is all of zeta: above the half of it asked for";
    EXPECT_EQ(l.places[3].depth, 3u);
    EXPECT_EQ(l.max_depth, 3u);
    EXPECT_EQ(analysis::flame_path(s.t, s.z1), (std::vector<uint32_t>{s.main, s.zeta, s.z1}));
}

TEST(FlameLayout, DeeperThanAnyStackWithoutRecursion) {
    HandTree t({1});
    uint32_t at = 0;
    for (int i = 0; i < 200000; ++i)
        at = t.add(at, "f", {1});
    FlameLayout l = lay_out_flame(t, {.min_share = 0.5});
    ASSERT_EQ(l.places.size(), 200001u);
    EXPECT_EQ(l.max_depth, 200000u);
    EXPECT_EQ(l.places.back().parent, 199999);
}

} // namespace
} // namespace cpcprof::test
