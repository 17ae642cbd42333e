// SPDX-License-Identifier: MIT
// The flame graph's layout and search without Qt, on storage's known
// profile (tests/storage/helpers.h: 11 samples whose every frame is known):
// widths, order of siblings, sub-pixel frames left out, zoom, inverted
// tree, search shares counted once per sample.
#include "gui/model/flame_layout.h"
#include "gui/model/summary.h"
#include "gui/pages/flame_tooltip.h"
#include "profiler/analysis/flame_layout.h"
#include "profiler/analysis/search.h"
#include "tests/storage/helpers.h"          // tests/storage
#include "tests/view_common/view_harness.h" // TempDir

#include <gtest/gtest.h>

#include <signal.h>
#include <strings.h>

#include <algorithm>
#include <map>

namespace cpcprof::test {
namespace {

using gui::FlameFrame;
using gui::FlameLayout;

struct Known {
    TempDir dir;
    gui::ProfilePtr profile;
    Known() {
        std::string path = dir.file("known.cpcprof");
        storagetest::write_known_profile(path);
        std::atomic<bool> cancel{false};
        std::string error;
        profile = gui::load_profile(path, cancel, &error);
        EXPECT_TRUE(profile) << error;
    }
    std::string name(const FlameFrame &f, bool inverted = false) const {
        const auto &t = inverted ? *profile->bottom_up : *profile->top_down;
        return profile->query->functions()[t.nodes()[f.node].function].name;
    }
    // "row:name" -> {x, width} of its leftmost frame on that row
    std::map<std::string, std::pair<double, double>> frames(const FlameLayout &l,
                                                            bool inverted = false) const {
        std::map<std::string, std::pair<double, double>> m;
        for (const FlameFrame &f : l.frames)
            m.insert({std::to_string(f.row) + ":" + name(f, inverted), {f.x, f.width}});
        return m;
    }
};

using Frames = std::map<std::string, std::pair<double, double>>;

TEST(GuiLayout, WidthsOrderAndRowsOfKnownProfile) {
    Known k;
    ASSERT_TRUE(k.profile);
    // 100 px per sample of cpu-clock (every sample's value is the period).
    FlameLayout l = gui::layout_flame(*k.profile->query, *k.profile->top_down, 0, 0, 1100);
    Frames want = {
        {"0:main", {0, 1000}},     {"0:[truncated]", {1000, 100}},  {"1:compute", {0, 600}},
        {"1:recurse", {600, 300}}, {"1:libx.so+0x500", {900, 100}}, {"2:square", {0, 600}},
        {"2:recurse", {600, 300}}, {"3:recurse", {600, 300}},
    };
    Frames got = k.frames(l);
    for (const auto &[key, xw] : want) {
        ASSERT_TRUE(got.count(key)) << key;
        EXPECT_DOUBLE_EQ(got[key].first, xw.first) << key;
        EXPECT_DOUBLE_EQ(got[key].second, xw.second) << key;
    }
    EXPECT_EQ(l.rows, 4u);
    // The truncated stack, [truncated] > recurse > recurse, right of main.
    size_t cut = 0;
    for (const FlameFrame &f : l.frames)
        if (f.x == 1000 && f.width == 100)
            cut += k.name(f) == (f.row == 0 ? "[truncated]" : "recurse");
    EXPECT_EQ(cut, 3u);
    // Parents come before their children.
    std::map<uint32_t, size_t> at;
    for (size_t i = 0; i < l.frames.size(); ++i)
        at[l.frames[i].node] = i;
    const auto &nodes = k.profile->top_down->nodes();
    for (const FlameFrame &f : l.frames) {
        if (nodes[f.node].parent != 0) {
            EXPECT_LT(at.at(nodes[f.node].parent), at.at(f.node));
        }
    }
}

TEST(GuiLayout, SubPixelFramesAreLeftOut) {
    Known k;
    ASSERT_TRUE(k.profile);
    // 0.5 px per sample: the 1-sample frames are narrower than a pixel.
    FlameLayout l = gui::layout_flame(*k.profile->query, *k.profile->top_down, 0, 0, 5.5);
    Frames got = k.frames(l);
    EXPECT_TRUE(got.count("0:main"));
    EXPECT_TRUE(got.count("1:compute"));
    EXPECT_TRUE(got.count("1:recurse"));
    EXPECT_FALSE(got.count("0:[truncated]"));
    EXPECT_FALSE(got.count("1:libx.so+0x500"));
    for (const FlameFrame &f : l.frames)
        EXPECT_GE(f.width, 1.0) << k.name(f);
}

TEST(GuiLayout, ZoomSpansWidthWithAncestorsAbove) {
    Known k;
    ASSERT_TRUE(k.profile);
    const auto &t = *k.profile->top_down;
    FlameLayout all = gui::layout_flame(*k.profile->query, t, 0, 0, 1100);
    uint32_t recurse = 0;
    for (const FlameFrame &f : all.frames)
        if (f.row == 1 && k.name(f) == "recurse" && f.x == 600)
            recurse = f.node;
    ASSERT_NE(recurse, 0u);
    FlameLayout z = gui::layout_flame(*k.profile->query, t, recurse, 0, 1100);
    Frames got = k.frames(z);
    EXPECT_EQ(z.frames.size(), 4u); // main (ancestor), recurse x3
    EXPECT_DOUBLE_EQ(got["0:main"].second, 1100);
    EXPECT_DOUBLE_EQ(got["1:recurse"].second, 1100);
    EXPECT_DOUBLE_EQ(got["3:recurse"].second, 1100);
    EXPECT_TRUE(z.frames.front().ancestor);
    EXPECT_EQ(
        analysis::flame_path(analysis::CallTreeFlame(*k.profile->query, t, {}), recurse).size(),
        2u);
}

TEST(GuiLayout, SecondEventSetsWidths) {
    Known k;
    ASSERT_TRUE(k.profile);
    // page-faults: compute 6 x 2, libx 5, recurse and the truncated stack 0.
    FlameLayout l = gui::layout_flame(*k.profile->query, *k.profile->top_down, 0, 1, 1700);
    Frames got = k.frames(l);
    EXPECT_DOUBLE_EQ(got["0:main"].second, 1700);
    EXPECT_DOUBLE_EQ(got["1:compute"].second, 1200);
    EXPECT_DOUBLE_EQ(got["1:libx.so+0x500"].first, 1200);
    EXPECT_DOUBLE_EQ(got["1:libx.so+0x500"].second, 500);
    EXPECT_FALSE(got.count("1:recurse"));
}

TEST(GuiLayout, InvertedTreeHasInnermostFunctionsAsRoots) {
    Known k;
    ASSERT_TRUE(k.profile);
    ASSERT_TRUE(k.profile->bottom_up) << k.profile->bottom_up_error;
    FlameLayout l = gui::layout_flame(*k.profile->query, *k.profile->bottom_up, 0, 0, 1100);
    Frames got = k.frames(l, true);
    EXPECT_DOUBLE_EQ(got["0:square"].second, 600);
    EXPECT_DOUBLE_EQ(got["0:recurse"].second, 400);
    EXPECT_DOUBLE_EQ(got["0:libx.so+0x500"].second, 100);
    EXPECT_DOUBLE_EQ(got["1:compute"].second, 600);
}

TEST(GuiSearch, SharesCountEachSampleOnce) {
    Known k;
    ASSERT_TRUE(k.profile);
    const auto &q = *k.profile->query;
    // recurse: 3 stacks recurse three times, the truncated one twice.
    analysis::SearchResult r = analysis::search(q, "recurse", false);
    EXPECT_EQ(r.functions.size(), 1u);
    EXPECT_EQ(r.total.samples, 4u);
    EXPECT_EQ(r.total.values[0], 4'000'000u);
    // The flame graph's search ignores case as the tables' does, in both
    // forms.
    for (bool regex : {false, true}) {
        analysis::SearchResult upper = analysis::search(q, "RECURSE", regex);
        EXPECT_EQ(upper.functions, r.functions) << regex;
        EXPECT_EQ(upper.total.samples, 4u) << regex;
    }
    // A regex of a caller and its inlined callee: the same 6 samples.
    r = analysis::search(q, "^(compute|square)$", true);
    EXPECT_EQ(r.functions.size(), 2u);
    EXPECT_EQ(r.total.samples, 6u);
    EXPECT_EQ(r.total.values[1], 12u);
    // Substring, not regex: the dot is a dot.
    r = analysis::search(q, "libx.so", false);
    EXPECT_EQ(r.total.samples, 1u);
    r = analysis::search(q, "lib.\\.so", false);
    EXPECT_EQ(r.functions.size(), 0u);
    EXPECT_EQ(r.total.samples, 0u);
    r = analysis::search(q, "[", true);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(r.functions.size(), 0u);
}

TEST(GuiTooltip, EveryEventSelfAndTotal) {
    Known k;
    ASSERT_TRUE(k.profile);
    const auto &t = *k.profile->top_down;
    const auto &functions = k.profile->query->functions();
    uint32_t compute = 0, square = 0;
    for (uint32_t v = 1; v < t.nodes().size(); ++v) {
        const std::string &n = functions[t.nodes()[v].function].name;
        compute = n == "compute" ? v : compute;
        square = n == "square" ? v : square;
    }
    ASSERT_NE(compute, 0u);
    ASSERT_NE(square, 0u);
    std::string tip = gui::frame_tooltip(*k.profile, t, compute).toStdString();
    // compute: self 0, total 6 samples = 6e6 ns of cpu-clock (54.55 %) and
    // 12 of the 17 page faults (70.59 %).
    EXPECT_NE(tip.find("<b>compute</b>"), std::string::npos) << tip;
    // The share first, then the value in its unit; cells that never wrap.
    EXPECT_NE(tip.find("<td>cpu-clock</td><td align=right nowrap>0.00 % (0.0 ms)</td><td "
                       "align=right nowrap>54.55 % (6.0 ms)</td>"),
              std::string::npos)
        << tip;
    EXPECT_NE(tip.find("<td>page-faults</td><td align=right nowrap>0.00 % (0)</td><td "
                       "align=right nowrap>70.59 % (12)</td>"),
              std::string::npos)
        << tip;
    EXPECT_NE(tip.find("/src/a.c"), std::string::npos) << tip;
    // An inlined call says so.
    tip = gui::frame_tooltip(*k.profile, t, square).toStdString();
    EXPECT_NE(tip.find("(inlined)"), std::string::npos) << tip;
    // cpu-clock and page-faults make no derived ratio: none is shown.
    EXPECT_EQ(tip.find("CPI"), std::string::npos) << tip;
}

TEST(GuiSummary, KnownProfile) {
    Known k;
    ASSERT_TRUE(k.profile);
    gui::Summary s = gui::make_summary(*k.profile, 0);
    std::map<std::string, std::string> lines;
    for (const auto &l : s.lines)
        lines[l.label] = l.value;
    EXPECT_EQ(lines["samples"], "11 kept / 11 stored, 0 dropped");
    EXPECT_EQ(lines["events"], "cpu-clock (sampling, period 1000000), page-faults (counted)");
    ASSERT_FALSE(s.top.empty());
    EXPECT_EQ(s.top[0].name, "square");
    EXPECT_DOUBLE_EQ(s.top[0].self_share, 6.0 / 11);
    // libx.so has no symbols: named, with the fix.
    ASSERT_EQ(s.modules_without_symbols.size(), 1u);
    EXPECT_NE(s.modules_without_symbols[0].find("/lib/libx.so"), std::string::npos);
    EXPECT_NE(s.symbols_fix.find("-dbgsym"), std::string::npos);
    EXPECT_NE(s.symbols_fix.find("cpcprof symbolize " + k.profile->path), std::string::npos);
    // Ordered by the chosen event: page-faults puts compute's 12 first.
    s = gui::make_summary(*k.profile, 1);
    ASSERT_FALSE(s.top.empty());
    EXPECT_EQ(s.top[0].name, "square");
    EXPECT_DOUBLE_EQ(s.top[0].self_share, 12.0 / 17);
}

// How a process ended, as the summary says it: a process that ended
// without its status (reaped by its own parent where the kernel keeps no
// status for the recorder) is not said to be running.
TEST(GuiSummary, ProcessEndSaysHowOrThatItIsNotKnown) {
    storage::ProcessRecord p;
    EXPECT_EQ(gui::process_end_text(p), "running at the end");
    p.end_ns = 5;
    EXPECT_EQ(gui::process_end_text(p), "ended, how not known");
    p.exit_status = 3;
    EXPECT_EQ(gui::process_end_text(p), "exit 3");
    p.exit_status.reset();
    p.killed_by_signal = SIGUSR1;
    EXPECT_EQ(gui::process_end_text(p), "killed by signal 10 (SIGUSR1)");
}

// The top N: the N functions of most self cost, in that order (ties by
// name), as a sort of them all would give; none without self cost.
TEST(GuiSummary, TopIsTheFirstOfAllFunctionsByCost) {
    Known k;
    ASSERT_TRUE(k.profile);
    const auto &q = *k.profile->query;
    std::vector<uint32_t> all;
    for (uint32_t f = 0; f < q.functions().size(); ++f)
        if (q.function_self()[f].values[0] > 0)
            all.push_back(f);
    std::sort(all.begin(), all.end(), [&](uint32_t a, uint32_t b) {
        uint64_t va = q.function_self()[a].values[0], vb = q.function_self()[b].values[0];
        return va != vb ? va > vb : q.functions()[a].name < q.functions()[b].name;
    });
    ASSERT_GE(all.size(), 3u);
    for (size_t top : {size_t(1), size_t(2), all.size(), all.size() + 5}) {
        gui::Summary s = gui::make_summary(*k.profile, 0, top);
        ASSERT_EQ(s.top.size(), std::min(top, all.size())) << top;
        for (size_t i = 0; i < s.top.size(); ++i)
            EXPECT_EQ(s.top[i].name, q.functions()[all[i]].name) << top << " row " << i;
    }
}

// The Function column's order, made with the loaded profile: by name
// without regard to case, each function once.
TEST(GuiSummary, NameRanksOrderFunctionsByNameIgnoringCase) {
    Known k;
    ASSERT_TRUE(k.profile);
    const auto &fns = k.profile->query->functions();
    ASSERT_EQ(k.profile->name_rank, gui::name_ranks(*k.profile->query));
    std::vector<uint32_t> by_rank(fns.size(), UINT32_MAX);
    for (uint32_t f = 0; f < fns.size(); ++f) {
        ASSERT_LT(k.profile->name_rank[f], fns.size());
        by_rank[k.profile->name_rank[f]] = f;
    }
    for (size_t r = 0; r < by_rank.size(); ++r)
        ASSERT_NE(by_rank[r], UINT32_MAX) << "rank " << r << " given twice";
    for (size_t r = 1; r < by_rank.size(); ++r)
        EXPECT_LE(strcasecmp(fns[by_rank[r - 1]].name.c_str(), fns[by_rank[r]].name.c_str()), 0)
            << fns[by_rank[r - 1]].name << " before " << fns[by_rank[r]].name;
}

} // namespace
} // namespace cpcprof::test
