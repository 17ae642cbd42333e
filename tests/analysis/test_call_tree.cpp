// SPDX-License-Identifier: MIT
// Query and CallTree in process, on profiles made from folded stacks
// (tests/support/folded_profile.h): totals over several events, self and
// total per function with recursion, the top-down, bottom-up, callers and
// callees trees node by node, truncated stacks with and without their
// marker, inlined calls, code without symbols, threads and time filters.
// Each expected figure is worked out from the folded lines above it.
#include "tests/support/folded_profile.h"
#include "tests/support/temp_dir.h"

#include "profiler/analysis/query.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <stdexcept>

namespace {

using namespace cpcprof::storage;
using namespace cpcprof::analysis;
using cpcprof::test::FoldedEvent;
using cpcprof::test::make_folded_profile;
using cpcprof::test::TempDir;

std::unique_ptr<Query> open_query(const std::string &path, const QueryFilter &f = {}) {
    std::string error;
    auto q = Query::open(path, f, &error);
    EXPECT_TRUE(q) << error;
    return q;
}

uint32_t fn(const Query &q, const std::string &name) {
    for (uint32_t i = 0; i < q.functions().size(); ++i)
        if (q.functions()[i].name == name)
            return i;
    ADD_FAILURE() << "no function " << name;
    return UINT32_MAX;
}

// Every node of a tree as its path of function names ("main;a;b"), with
// its self and total samples; an inlined node's name ends in "[inline]".
using Rows = std::map<std::string, std::pair<uint64_t, uint64_t>>;
Rows rows(const Query &q, const CallTree &t) {
    Rows out;
    std::vector<std::string> path(t.nodes().size());
    for (size_t i = 1; i < t.nodes().size(); ++i) {
        const CallTree::Node &n = t.nodes()[i];
        std::string name = q.functions()[n.function].name + (n.inlined ? "[inline]" : "");
        path[i] = n.parent == 0 ? name : path[n.parent] + ";" + name;
        EXPECT_TRUE(out.emplace(path[i], std::pair{n.self.samples, n.total.samples}).second)
            << "two nodes for " << path[i];
    }
    return out;
}

// Three events; a recursion (main;a;a;b) that must count once per sample.
const std::vector<FoldedEvent> kEvents = {{"cycles", 1000}, {"instructions"}, {"cache-misses"}};
const std::vector<std::string> kCalls = {
    "main;a;b 10 1000 500 3",
    "main;a 5 1000 200 1",
    "main;c;b 3 1000 100 0",
    "main;a;a;b 2 1000 50 2",
};

struct CallTreeTest : ::testing::Test {
    TempDir dir{"cpcprof-calltree"};
};

TEST_F(CallTreeTest, TotalsSumEveryEventOverEverySample) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    ASSERT_EQ(q->events().size(), 3u);
    EXPECT_EQ(q->events()[0].name, "cycles");
    EXPECT_EQ(q->events()[0].period, 1000u);
    EXPECT_EQ(q->samples_kept(), 20u);
    EXPECT_EQ(q->samples_read(), 20u);
    EXPECT_EQ(q->samples_complete(), 20u);
    EXPECT_EQ(q->truncated_function(), Query::kNoFunction);
    EXPECT_EQ(q->total().samples, 20u);
    EXPECT_EQ(q->total().values, (std::vector<uint64_t>{20'000, 6'400, 39}));
    EXPECT_EQ(q->stack_count(), 4u);
}

TEST_F(CallTreeTest, SelfAndTotalPerFunctionCountARecursionOnce) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    auto self = [&](const char *f) { return q->function_self()[fn(*q, f)]; };
    auto total = [&](const char *f) { return q->function_total()[fn(*q, f)]; };
    EXPECT_EQ(self("b").samples, 15u);
    EXPECT_EQ(self("b").values, (std::vector<uint64_t>{15'000, 5'400, 10 * 3 + 2 * 2}));
    EXPECT_EQ(self("a").samples, 5u);
    EXPECT_EQ(self("a").values, (std::vector<uint64_t>{5'000, 200 * 5, 5}));
    EXPECT_EQ(self("main").samples, 0u);
    EXPECT_EQ(self("c").samples, 0u);
    EXPECT_EQ(total("main").samples, 20u);
    // a is twice on main;a;a;b: 10 + 5 + 2, not 10 + 5 + 4.
    EXPECT_EQ(total("a").samples, 17u);
    EXPECT_EQ(total("a").values, (std::vector<uint64_t>{17'000, 6'100, 39}));
    EXPECT_EQ(total("b").samples, 15u);
    EXPECT_EQ(total("c").samples, 3u);
    EXPECT_EQ(total("c").values, (std::vector<uint64_t>{3'000, 300, 0}));
}

TEST_F(CallTreeTest, TopDownTreeHasOneNodePerCallPath) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    CallTree t = CallTree::top_down(*q);
    EXPECT_EQ(t.nodes()[0].total.samples, 20u);
    EXPECT_EQ(t.nodes()[0].total.values, q->total().values);
    EXPECT_EQ(rows(*q, t), (Rows{{"main", {0, 20}},
                                 {"main;a", {5, 17}},
                                 {"main;a;b", {10, 10}},
                                 {"main;a;a", {0, 2}},
                                 {"main;a;a;b", {2, 2}},
                                 {"main;c", {0, 3}},
                                 {"main;c;b", {3, 3}}}));
}

// Collapsed recursion: main;a;a;b is main;a;b, its samples merged there;
// a recursion further down (x;y;y;y;z) is one y; a and a apart (a;c;a) stay.
TEST_F(CallTreeTest, TopDownTreeCollapsesRecursion) {
    std::vector<std::string> calls = kCalls;
    calls.emplace_back("x;y;y;y;z 4 1000 10 0");
    calls.emplace_back("main;a;c;a 1 1000 10 0");
    auto q = open_query(make_folded_profile(dir.path(), calls, kEvents));
    ASSERT_TRUE(q);
    CallTree t = CallTree::top_down(*q, false, true);
    EXPECT_EQ(t.nodes()[0].total.samples, 25u);
    EXPECT_EQ(rows(*q, t), (Rows{{"main", {0, 21}},
                                 {"main;a", {5, 18}},
                                 {"main;a;b", {12, 12}},
                                 {"main;a;c", {0, 1}},
                                 {"main;a;c;a", {1, 1}},
                                 {"main;c", {0, 3}},
                                 {"main;c;b", {3, 3}},
                                 {"x", {0, 4}},
                                 {"x;y", {0, 4}},
                                 {"x;y;z", {4, 4}}}));
    // Totals stay once per sample: the same as the tree's without collapse.
    EXPECT_EQ(t.nodes()[0].total.values, CallTree::top_down(*q).nodes()[0].total.values);
}

TEST_F(CallTreeTest, BottomUpTreeReadsStacksFromTheirLeaf) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    CallTree t = CallTree::bottom_up(*q);
    EXPECT_EQ(t.nodes()[0].total.samples, 20u);
    EXPECT_EQ(rows(*q, t), (Rows{{"b", {15, 15}},
                                 {"b;a", {0, 12}},
                                 {"b;a;main", {0, 10}},
                                 {"b;a;a", {0, 2}},
                                 {"b;a;a;main", {0, 2}},
                                 {"b;c", {0, 3}},
                                 {"b;c;main", {0, 3}},
                                 {"a", {5, 5}},
                                 {"a;main", {0, 5}}}));
}

TEST_F(CallTreeTest, CallersStartAtTheInnermostOccurrence) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    CallTree b = CallTree::callers(*q, fn(*q, "b"));
    EXPECT_EQ(rows(*q, b), (Rows{{"b", {15, 15}},
                                 {"b;a", {0, 12}},
                                 {"b;a;main", {0, 10}},
                                 {"b;a;a", {0, 2}},
                                 {"b;a;a;main", {0, 2}},
                                 {"b;c", {0, 3}},
                                 {"b;c;main", {0, 3}}}));
    // main;a;a;b: from the inner a, whose callers are a and then main.
    CallTree a = CallTree::callers(*q, fn(*q, "a"));
    EXPECT_EQ(rows(*q, a),
              (Rows{{"a", {5, 17}}, {"a;main", {0, 15}}, {"a;a", {0, 2}}, {"a;a;main", {0, 2}}}));
    EXPECT_EQ(a.nodes()[0].total.samples, 17u);
}

TEST_F(CallTreeTest, CalleesStartAtTheOutermostOccurrence) {
    auto q = open_query(make_folded_profile(dir.path(), kCalls, kEvents));
    ASSERT_TRUE(q);
    CallTree a = CallTree::callees(*q, fn(*q, "a"));
    EXPECT_EQ(rows(*q, a),
              (Rows{{"a", {5, 17}}, {"a;b", {10, 10}}, {"a;a", {0, 2}}, {"a;a;b", {2, 2}}}));
    EXPECT_EQ(a.nodes()[0].total.values, (std::vector<uint64_t>{17'000, 6'100, 39}));
    CallTree c = CallTree::callees(*q, fn(*q, "c"));
    EXPECT_EQ(rows(*q, c), (Rows{{"c", {0, 3}}, {"c;b", {3, 3}}}));
}

// Like tests/storage's known profile: an inlined call, a recursion, code
// without symbols on a second thread, and a stack cut short.
const std::vector<std::string> kMixed = {
    "main:10;compute:20;square:3[inline] 6",
    "main:10;rec:31;rec:31;rec:30 3",
    "101:main:11;libx.so+0x500 1",
    "101:...;rec:31;rec:30 1",
};

TEST_F(CallTreeTest, TruncatedStacksAreRootsOfTheirOwnOrUnderTheMarker) {
    auto q = open_query(make_folded_profile(dir.path(), kMixed));
    ASSERT_TRUE(q);
    EXPECT_EQ(q->samples_kept(), 11u);
    EXPECT_EQ(q->samples_complete(), 10u);
    size_t cut = 0;
    for (size_t i = 0; i < q->stack_count(); ++i)
        cut += q->stack_truncated(i);
    EXPECT_EQ(cut, 1u);
    ASSERT_NE(q->truncated_function(), Query::kNoFunction);
    EXPECT_EQ(q->functions()[q->truncated_function()].name, "[truncated]");
    EXPECT_EQ(q->function_total()[fn(*q, "rec")].samples, 4u);

    Rows plain = rows(*q, CallTree::top_down(*q));
    EXPECT_EQ(plain.at("rec"), (std::pair<uint64_t, uint64_t>{0, 1}));
    EXPECT_EQ(plain.at("rec;rec"), (std::pair<uint64_t, uint64_t>{1, 1}));
    EXPECT_EQ(plain.at("main;rec;rec;rec"), (std::pair<uint64_t, uint64_t>{3, 3}));
    EXPECT_EQ(plain.count("[truncated]"), 0u);

    Rows marked = rows(*q, CallTree::top_down(*q, true));
    EXPECT_EQ(marked.count("rec"), 0u);
    EXPECT_EQ(marked.at("[truncated]"), (std::pair<uint64_t, uint64_t>{0, 1}));
    EXPECT_EQ(marked.at("[truncated];rec;rec"), (std::pair<uint64_t, uint64_t>{1, 1}));
    EXPECT_EQ(marked.size(), plain.size() + 1);

    Rows up = rows(*q, CallTree::bottom_up(*q, true));
    EXPECT_EQ(up.at("rec"), (std::pair<uint64_t, uint64_t>{4, 4}));
    EXPECT_EQ(up.at("rec;rec"), (std::pair<uint64_t, uint64_t>{0, 4}));
    EXPECT_EQ(up.at("rec;rec;[truncated]"), (std::pair<uint64_t, uint64_t>{0, 1}));
    EXPECT_EQ(up.at("rec;rec;rec;main"), (std::pair<uint64_t, uint64_t>{0, 3}));
    EXPECT_EQ(rows(*q, CallTree::bottom_up(*q)).count("rec;rec;[truncated]"), 0u);
}

TEST_F(CallTreeTest, InlinedCallsAreNodesOrFoldIntoTheirCaller) {
    std::string path = make_folded_profile(dir.path(), kMixed);
    auto q = open_query(path);
    ASSERT_TRUE(q);
    Rows t = rows(*q, CallTree::top_down(*q));
    EXPECT_EQ(t.at("main;compute;square[inline]"), (std::pair<uint64_t, uint64_t>{6, 6}));
    EXPECT_EQ(t.at("main;compute"), (std::pair<uint64_t, uint64_t>{0, 6}));

    QueryFilter f;
    f.inline_frames = false;
    auto flat = open_query(path, f);
    ASSERT_TRUE(flat);
    EXPECT_TRUE(flat->find_functions("square").empty());
    Rows ft = rows(*flat, CallTree::top_down(*flat));
    EXPECT_EQ(ft.at("main;compute"), (std::pair<uint64_t, uint64_t>{6, 6}));
    // The cost of the inlined call is at the line of the call in compute.
    std::map<uint32_t, uint64_t> compute_lines;
    for (const Query::LineCost &l : flat->line_costs())
        if (flat->functions()[l.function].name == "compute")
            compute_lines[l.line] = l.self.samples;
    EXPECT_EQ(compute_lines, (std::map<uint32_t, uint64_t>{{20, 6}}));
}

TEST_F(CallTreeTest, LinesSplitAFunctionsCost) {
    auto q = open_query(make_folded_profile(dir.path(), kMixed));
    ASSERT_TRUE(q);
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> rec, main;
    for (const Query::LineCost &l : q->line_costs()) {
        const std::string &name = q->functions()[l.function].name;
        EXPECT_EQ(q->files()[l.file], q->functions()[l.function].has_symbols ? "/src/folded.c" : "")
            << name;
        if (name == "rec")
            rec[l.line] = {l.self.samples, l.total.samples};
        if (name == "main")
            main[l.line] = {l.self.samples, l.total.samples};
    }
    EXPECT_EQ(rec, (std::map<uint32_t, std::pair<uint64_t, uint64_t>>{{30, {4, 4}}, {31, {0, 4}}}));
    EXPECT_EQ(main,
              (std::map<uint32_t, std::pair<uint64_t, uint64_t>>{{10, {0, 9}}, {11, {0, 1}}}));
}

TEST_F(CallTreeTest, CodeWithoutSymbolsIsNamedByModuleAndOffset) {
    auto q = open_query(make_folded_profile(dir.path(), kMixed));
    ASSERT_TRUE(q);
    uint32_t libx = fn(*q, "libx.so+0x500");
    ASSERT_NE(libx, UINT32_MAX);
    EXPECT_FALSE(q->functions()[libx].has_symbols);
    EXPECT_EQ(q->functions()[libx].module, "/lib/libx.so");
    EXPECT_TRUE(q->functions()[fn(*q, "main")].has_symbols);
    EXPECT_EQ(q->modules_without_symbols(), std::vector<std::string>{"/lib/libx.so"});
    EXPECT_EQ(rows(*q, CallTree::callers(*q, libx)),
              (Rows{{"libx.so+0x500", {1, 1}}, {"libx.so+0x500;main", {0, 1}}}));
}

// The program whose functions the frames are is /opt/prog unless given;
// a path that is not absolute, or one under /lib (the modules without
// symbols), is refused before anything is written.
TEST_F(CallTreeTest, FramesAreFunctionsOfTheGivenProgram) {
    auto q = open_query(make_folded_profile(dir.path(), {"main;libx.so+0x10 1"}, {{"cycles", 10}},
                                            "mine.cpcprof", "/opt/mine"));
    ASSERT_TRUE(q);
    EXPECT_EQ(q->functions()[fn(*q, "main")].module, "/opt/mine");
    EXPECT_EQ(q->functions()[fn(*q, "libx.so+0x10")].module, "/lib/libx.so");
    auto d = open_query(make_folded_profile(dir.path(), {"main 1"}));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->functions()[fn(*d, "main")].module, "/opt/prog");
    for (const char *bad : {"mine", "/lib/mine", ""})
        EXPECT_THROW(
            make_folded_profile(dir.path(), {"main 1"}, {{"cycles", 10}}, "bad.cpcprof", bad),
            std::invalid_argument)
            << bad;
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/bad.cpcprof"));
}

TEST_F(CallTreeTest, ThreadsAndTimesFilterTheSamples) {
    std::string path = make_folded_profile(dir.path(), kMixed);
    auto q = open_query(path);
    ASSERT_TRUE(q);
    ASSERT_EQ(q->threads().size(), 2u);
    EXPECT_EQ(q->threads()[0].tid, 100);
    EXPECT_EQ(q->threads()[0].name, "t100");
    EXPECT_EQ(q->threads()[0].cost.samples, 9u);
    EXPECT_EQ(q->threads()[1].tid, 101);
    EXPECT_EQ(q->threads()[1].cost.samples, 2u);

    QueryFilter worker;
    worker.tid = 101;
    auto w = open_query(path, worker);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->samples_kept(), 2u);
    EXPECT_EQ(w->samples_read(), 11u);
    EXPECT_EQ(rows(*w, CallTree::top_down(*w)), (Rows{{"main", {0, 1}},
                                                      {"main;libx.so+0x500", {1, 1}},
                                                      {"rec", {0, 1}},
                                                      {"rec;rec", {1, 1}}}));

    // Samples are 1 ms apart from 1 ms on: [6.5, 10.5) ms holds samples
    // 7-10, the three of the recursion and the one in libx.
    QueryFilter window;
    window.from_ns = 6'500'000;
    window.to_ns = 10'500'000;
    auto t = open_query(path, window);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->samples_kept(), 4u);
    EXPECT_EQ(t->function_total()[fn(*t, "rec")].samples, 3u);
    EXPECT_EQ(t->function_self()[fn(*t, "libx.so+0x500")].samples, 1u);
    EXPECT_TRUE(t->find_functions("compute").empty());
}

// The builder itself: what it cannot read it refuses, saying which line
// and why, and writes nothing.
TEST_F(CallTreeTest, FoldedLinesThatCannotBeReadAreRefused) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"main;a", "no sample count"},
        {"main;;a 3", "empty frame"},
        {"a[inline];main 1", "inlined but has no function before it"},
        {"main;a 2 7 8", "2 values for 1 events"},
        {"main;a 0", "a count of 0 samples"},
        {"...; 4", "no frames"},
        {"main;/lib/x.so+0x10 1", "a file name, not a path"},
    };
    for (const auto &[line, why] : bad) {
        try {
            make_folded_profile(dir.path(), {"main 1", line}, {{"cycles", 1000}}, "bad.cpcprof");
            ADD_FAILURE() << "accepted: " << line;
        } catch (const std::invalid_argument &e) {
            std::string what = e.what();
            EXPECT_NE(what.find(why), std::string::npos) << what;
            EXPECT_NE(what.find("line 2"), std::string::npos) << what;
        }
        EXPECT_FALSE(std::filesystem::exists(dir.file("bad.cpcprof"))) << line;
    }
}

} // namespace
