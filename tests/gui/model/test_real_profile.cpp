// SPDX-License-Identifier: MIT
// The viewer's models and pages on a real recording of cpcprof-demo
// (tests/view_common's harness), against what `cpcprof report` prints for the
// same file: every function's self and total, the callers and callees of
// the hottest function, the trees' totals.  Offscreen.
#include "tests/view_common/view_harness.h"

#include "gui/itemmodels/tree_model.h"
#include "gui/model/cost_columns.h"
#include "gui/model/cost_tree.h"
#include "gui/model/search.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/tree_page.h"
#include "profiler/analysis/hotspots.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeView>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <map>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using nlohmann::json;

struct RealProfile : ::testing::Test {
    ProfilePtr profile;
    json report; // cpcprof report --format json --top 0
    void SetUp() override {
        SKIP_WITHOUT_DEMO_RECORDING();
        const std::string &file = test::demo_profile();
        ASSERT_FALSE(file.empty());
        std::atomic<bool> cancel{false};
        std::string error;
        profile = load_profile(file, cancel, &error);
        ASSERT_TRUE(profile) << error;
        test::TempDir dir;
        test::RunResult r = test::cpcprof(dir, {"report", file, "--format", "json", "--top", "0"});
        ASSERT_EQ(r.status, 0) << r.err;
        report = json::parse(r.out);
    }
    // report's row of function fn (by name and module); nullptr if none.
    const json *report_row(uint32_t fn) const {
        const auto &f = profile->query->functions()[fn];
        for (const json &row : report.at("rows"))
            if (row.at("function") == f.name && row.at("module") == f.module)
                return &row;
        return nullptr;
    }
    uint32_t hottest() const {
        const auto &q = *profile->query;
        uint32_t hot = 0;
        for (uint32_t f = 0; f < q.functions().size(); ++f)
            if (q.function_self()[f].samples > q.function_self()[hot].samples)
                hot = f;
        return hot;
    }
};

std::vector<uint64_t> values(const json &cost) {
    return cost.at("values").get<std::vector<uint64_t>>();
}

TEST_F(RealProfile, HotspotRowsAreReportRows) {
    std::vector<analysis::HotspotRow> rows =
        analysis::hotspot_rows(*profile->query, analysis::GroupBy::function);
    ASSERT_EQ(rows.size(), report.at("rows").size());
    ASSERT_GT(rows.size(), 3u);
    for (const analysis::HotspotRow &r : rows) {
        const json *theirs = report_row(r.function_index);
        ASSERT_NE(theirs, nullptr) << profile->query->functions()[r.function_index].name;
        EXPECT_EQ(r.self.samples, theirs->at("self").at("samples").get<uint64_t>());
        EXPECT_EQ(r.total.samples, theirs->at("total").at("samples").get<uint64_t>());
        EXPECT_EQ(r.self.values, values(theirs->at("self")));
        EXPECT_EQ(r.total.values, values(theirs->at("total")));
    }
}

// A function's search total (once per sample) is report's total, and the
// heaviest node of it in the callers tree holds that total too.
TEST_F(RealProfile, SearchAndCallersAgreeWithReportTotals) {
    const cpcprof::analysis::Query &q = *profile->query;
    uint32_t hot = hottest();
    const json *row = report_row(hot);
    ASSERT_NE(row, nullptr);
    // Exactly its name: every character escaped.
    std::string exact = "^";
    for (char c : q.functions()[hot].name) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            exact += '\\';
        exact += c;
    }
    std::string error;
    auto m = NameMatcher::make(exact + "$", true, &error);
    ASSERT_TRUE(m) << error;
    SearchResult s = search(q, *m);
    ASSERT_EQ(s.functions.size(), 1u) << q.functions()[hot].name;
    EXPECT_EQ(s.total.values, values(row->at("total")));
    CostTree callers = callers_tree(profile, hot);
    ASSERT_TRUE(callers.tree) << callers.error;
    EXPECT_EQ(callers.node(callers.child(0, 0)).total.values, values(row->at("total")));
    CostTree callees = callees_tree(profile, hot);
    ASSERT_TRUE(callees.tree) << callees.error;
    EXPECT_EQ(callees.node(callees.child(0, 0)).total.samples,
              row->at("total").at("samples").get<uint64_t>());
    for (CostTree t : {top_down_tree(profile), bottom_up_tree(profile)}) {
        ASSERT_TRUE(t.tree) << t.error;
        uint64_t samples = 0;
        for (size_t i = 0; i < t.child_count(0); ++i)
            samples += t.node(t.child(0, i)).total.samples;
        EXPECT_EQ(samples, report.at("run").at("samples").at("kept").get<uint64_t>());
    }
}

TEST_F(RealProfile, PagesShowTheHottestFunction) {
    uint32_t hot = hottest();
    HotspotsPage hp;
    hp.setProfile(profile);
    // Sorted by self of the sampling event: report's order, whose first row is the hottest.
    EXPECT_EQ(hp.view()->model()->index(0, 0).data(FunctionRole).toUInt(), hot);
    EXPECT_EQ(hp.view()->model()->index(0, 0).data().toString().toStdString(),
              report.at("rows").at(0).at("function").get<std::string>());
    for (auto kind : {TreePage::Kind::TopDown, TreePage::Kind::BottomUp}) {
        TreePage page(kind);
        page.setProfile(profile);
        page.selectFunction(hot);
        EXPECT_EQ(page.view()->currentIndex().data(FunctionRole).toUInt(), hot);
    }
    CallerCalleePage cc;
    cc.setProfile(profile);
    QSignalSpy shown(&cc, &CallerCalleePage::treesShown);
    cc.selectFunction(hot);
    ASSERT_TRUE(shown.wait(10000));
    QAbstractItemModel *callers = cc.callersView()->model();
    ASSERT_EQ(callers->rowCount(), 1);
    int total = cc.callersModel()->eventColumn(0, CostColumn::Kind::Total);
    EXPECT_EQ(callers->index(0, total).data(SortRole).toDouble(),
              double(values(report_row(hot)->at("total")).at(0)));
}

} // namespace
} // namespace cpcprof::guitest

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
