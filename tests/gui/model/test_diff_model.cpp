// SPDX-License-Identifier: MIT
// gui/model's DiffData and gui/itemmodels' delta columns and Comparison table
// against `cpcprof diff --format json` on the same pair of folded-stack
// profiles; every item model checked with QAbstractItemModelTester.
// Offscreen, no display.
#include "tests/gui/model/model_test_util.h"

#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/diff_table_model.h"
#include "gui/itemmodels/table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/model/diff_data.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/diff_page.h"
#include "tests/support/folded_profile.h" // tests/support

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QSortFilterProxyModel>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using nlohmann::json;

// COUNT samples of each stack; each sample's cycles and instructions.
// b grows from 30 % to 60 % of cycles, d shrinks, gone is only in BASE,
// fresh only in NEW; c keeps its count but its share of instructions moves.
const std::vector<std::string> kBase = {"main;a;b 30 1000 400", "main;a;c 20 1000 1000",
                                        "main;d 40 1000 800", "main;gone 10 1000 100"};
const std::vector<std::string> kNew = {"main;a;b 60 1000 400", "main;a;c 20 1000 1000",
                                       "main;d 10 1000 800", "main;fresh 10 1000 100",
                                       "main;d;b 5 1000 100"};

struct DiffModel : ProfileTest {
    ProfilePtr base;
    DiffPtr diff;
    json doc; // cpcprof diff's
    std::string base_file, new_file;

    void SetUp() override {
        ProfileTest::SetUp();
        std::vector<test::FoldedEvent> events = {{"cycles", 1000}, {"instructions", 0}};
        base_file = test::make_folded_profile(dir, kBase, events, "base.cpcprof", "/opt/folded");
        new_file = test::make_folded_profile(dir, kNew, events, "new.cpcprof", "/opt/folded");
        load(base_file);
        base = profile;
        load(new_file);
        std::string error;
        diff = compare_profiles(base, profile, &error);
        ASSERT_TRUE(diff) << error;
    }

    // `cpcprof diff BASE NEW --format json --top 0 [--event E]`, parsed.
    json cpcprof_diff(const std::string &event = {}) {
#ifdef CPCPROF_EXE
        std::string cmd = std::string(CPCPROF_EXE) + " diff '" + base_file + "' '" + new_file +
                          "' --format json --top 0" + (event.empty() ? "" : " --event " + event);
        FILE *p = popen(cmd.c_str(), "r");
        if (!p)
            return {};
        std::string out;
        char buf[4096];
        for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
            out.append(buf, n);
        EXPECT_EQ(pclose(p), 0) << cmd;
        return json::parse(out);
#else
        (void)event;
        return {};
#endif
    }

    const json *row_of(const json &d, const std::string &name) const {
        for (const json &r : d.at("functions"))
            if (r.at("function") == name)
                return &r;
        return nullptr;
    }
};

#ifdef CPCPROF_EXE
#define NEEDS_CPCPROF()
#else
#define NEEDS_CPCPROF() GTEST_SKIP() << "the cpcprof program is not built"
#endif

TEST_F(DiffModel, FunctionFiguresAreCpcprofDiffs) {
    NEEDS_CPCPROF();
    json d = cpcprof_diff();
    const cpcprof::analysis::Comparison &c = diff->comparison;
    ASSERT_EQ(d.at("events").get<std::vector<std::string>>(), c.events);
    ASSERT_EQ(d.at("functions").size(), c.functions.size());
    for (const cpcprof::analysis::FunctionDiff &f : c.functions) {
        const json *r = row_of(d, f.name);
        ASSERT_NE(r, nullptr) << f.name;
        DeltaInput in = diff->row_delta(f);
        for (size_t e = 0; e < c.events.size(); ++e) {
            for (bool self : {true, false}) {
                const json &theirs = r->at(self ? "self_points" : "total_points").at(e);
                auto mine = diff->points(in, e, self);
                ASSERT_EQ(mine.has_value(), !theirs.is_null()) << f.name;
                if (mine) {
                    EXPECT_NEAR(*mine, theirs.get<double>(), 1e-7) << f.name << " e" << e;
                }
                double now = r->at("new").at(self ? "self" : "total").at(e).get<double>();
                double was = r->at("base").at(self ? "self" : "total").at(e).get<double>();
                EXPECT_EQ(diff->count_change(in, e, self), now - was) << f.name;
            }
        }
    }
    // Hand-checked: b's self share of cycles went from 30 % to 65/125.
    const json *b = row_of(d, "b");
    ASSERT_NE(b, nullptr);
    EXPECT_NEAR(b->at("self_points").at(0).get<double>(), (65.0 / 105 - 0.3) * 100, 1e-7);
}

TEST_F(DiffModel, ComparisonTableIsCpcprofDiffsTableInItsOrder) {
    NEEDS_CPCPROF();
    for (const std::string event : {"cycles", "instructions"}) {
        json d = cpcprof_diff(event);
        DiffTableModel m;
        QAbstractItemModelTester tester(&m,
                                        QAbstractItemModelTester::FailureReportingMode::Warning);
        size_t e = event == "cycles" ? 0 : 1;
        m.setDiff(diff, e);
        ASSERT_EQ(size_t(m.rowCount()), d.at("functions").size());
        EXPECT_EQ(m.columnCount(), DiffTableModel::kKeyColumns + 2 * DiffTableModel::Figures);
        for (int row = 0; row < m.rowCount(); ++row) {
            const json &r = d.at("functions").at(size_t(row));
            EXPECT_EQ(m.index(row, 0).data().toString().toStdString(), r.at("function")) << row;
            QVariant pp = m.index(row, m.column(e, DiffTableModel::SelfPoints)).data(SortRole);
            if (!r.at("self_points").at(e).is_null()) {
                EXPECT_NEAR(pp.toDouble(), r.at("self_points").at(e).get<double>(), 1e-7);
            }
        }
    }
    DiffTableModel m;
    m.setDiff(diff, 0);
    int gone = m.rowNamed("gone");
    ASSERT_GE(gone, 0);
    EXPECT_EQ(m.index(gone, 2).data().toString(), "only in base");
    EXPECT_EQ(m.index(m.rowNamed("fresh"), 2).data().toString(), "only in new");
}

TEST_F(DiffModel, PageListsFunctionsOnlyInBaseAndSortsByDelta) {
    DiffPage page;
    QAbstractItemModelTester tester(page.proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    page.setDiff(diff);
    page.setShow(DiffPage::OnlyInBase);
    ASSERT_EQ(page.proxy()->rowCount(), 1);
    EXPECT_EQ(page.proxy()->index(0, 0).data().toString(), "gone");
    EXPECT_EQ(diff->only_in_base(0).size(), 1u);
    page.setShow(DiffPage::All);
    int col = page.model()->column(0, DiffTableModel::SelfPoints);
    page.proxy()->sort(col, Qt::DescendingOrder);
    EXPECT_EQ(page.proxy()->index(0, 0).data().toString(), "b");
    page.proxy()->sort(col, Qt::AscendingOrder);
    EXPECT_EQ(page.proxy()->index(0, 0).data().toString(), "d");
}

TEST_F(DiffModel, TreeDeltaColumnsMatchCallPathsInBase) {
    NEEDS_CPCPROF();
    json d = cpcprof_diff();
    CostTreeModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Warning);
    m.setTree(top_down_tree(profile));
    int plain = m.columnCount();
    m.setDiff(diff);
    ASSERT_EQ(m.columnCount(), plain + 8); // 2 events x self/total x share/count
    int self_pp = m.deltaColumn(0, true, true), total_pp = m.deltaColumn(0, false, true);
    int self_n = m.deltaColumn(0, true, false);
    ASSERT_GE(self_pp, m.firstDeltaColumn());
    QModelIndex main = m.index(0, 0);
    uint32_t a = child_named(m.tree(), m.nodeOf(main), "a");
    uint32_t ab = child_named(m.tree(), a, "b");
    uint32_t db = child_named(m.tree(), child_named(m.tree(), m.nodeOf(main), "d"), "b");
    ASSERT_NE(ab, 0u);
    ASSERT_NE(db, 0u);
    // main;a;b: 30 of 100 samples in BASE, 60 of 105 in NEW; main;d;b: not in BASE.
    QModelIndex iab = m.indexOfNode(ab).siblingAtColumn(self_pp);
    EXPECT_NEAR(iab.data(SortRole).toDouble(), (60.0 / 105 - 0.3) * 100, 1e-7);
    EXPECT_EQ(m.indexOfNode(ab).siblingAtColumn(self_n).data(SortRole).toDouble(),
              (60.0 - 30) * 1000);
    EXPECT_NEAR(m.indexOfNode(db).siblingAtColumn(self_pp).data(SortRole).toDouble(),
                5.0 / 105 * 100, 1e-7);
    EXPECT_TRUE(iab.data(Qt::ToolTipRole).toString().contains("(30.00%)"))
        << iab.data(Qt::ToolTipRole).toString().toStdString();
    // b's two call paths together are cpcprof diff's row of b.
    double both = m.indexOfNode(ab).siblingAtColumn(self_pp).data(SortRole).toDouble() +
                  m.indexOfNode(db).siblingAtColumn(self_pp).data(SortRole).toDouble();
    EXPECT_NEAR(both, row_of(d, "b")->at("self_points").at(0).get<double>(), 1e-7);
    // main is in both: its total share is 100 % on each side.
    EXPECT_NEAR(main.siblingAtColumn(total_pp).data(SortRole).toDouble(), 0.0, 1e-7);
    EXPECT_EQ(main.siblingAtColumn(total_pp).data().toString(), "0.00");

    // Sorted by the delta, through the views' proxy: a (grew) before d (shrank).
    CostProxy proxy;
    proxy.setSourceModel(&m);
    proxy.sort(m.deltaColumn(0, false, true), Qt::DescendingOrder);
    QModelIndex pmain = proxy.index(0, 0);
    ASSERT_EQ(proxy.rowCount(pmain), 3); // a, fresh, d: gone is not in NEW's tree
    EXPECT_EQ(proxy.index(0, 0, pmain).data().toString(), "a");
    EXPECT_EQ(proxy.index(2, 0, pmain).data().toString(), "d");

    // A new profile drops the comparison made for the old one.
    m.setTree(top_down_tree(base));
    EXPECT_EQ(m.columnCount(), plain);
}

TEST_F(DiffModel, BottomUpAndHotspotDeltas) {
    NEEDS_CPCPROF();
    json d = cpcprof_diff();
    CostTreeModel bu;
    QAbstractItemModelTester tester(&bu, QAbstractItemModelTester::FailureReportingMode::Warning);
    bu.setTree(bottom_up_tree(profile));
    bu.setDiff(diff);
    // Bottom-up roots are the innermost functions: root b holds every self sample of b.
    int col = bu.deltaColumn(0, true, true);
    uint32_t b = child_named(bu.tree(), 0, "b");
    ASSERT_NE(b, 0u);
    EXPECT_NEAR(bu.indexOfNode(b).siblingAtColumn(col).data(SortRole).toDouble(),
                row_of(d, "b")->at("self_points").at(0).get<double>(), 1e-7);

    HotspotTableModel h;
    QAbstractItemModelTester htester(&h, QAbstractItemModelTester::FailureReportingMode::Warning);
    h.setProfile(profile);
    h.setDiff(diff);
    for (const std::string name : {"a", "b", "c", "d", "fresh", "main"}) {
        int row = h.rowOfFunction(function_named(name));
        ASSERT_GE(row, 0) << name;
        for (size_t e = 0; e < 2; ++e)
            for (bool self : {true, false}) {
                QVariant v = h.index(row, h.deltaColumn(int(e), self, true)).data(SortRole);
                EXPECT_NEAR(
                    v.toDouble(),
                    row_of(d, name)->at(self ? "self_points" : "total_points").at(e).get<double>(),
                    1e-7)
                    << name << " e" << e << (self ? " self" : " total");
            }
    }
}

TEST_F(DiffModel, CallersAndCalleesTreesAreMatchedInTheBase) {
    CallerCalleePage page;
    page.setProfile(profile);
    page.functionsModel()->setDiff(diff); // as the window's Page::setDiff does
    page.setProfile(profile);
    QAbstractItemModelTester tester(page.callersModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    page.selectFunction(function_named("b"));
    ASSERT_TRUE(QTest::qWaitFor([&] {
        return page.callersModel()->tree().tree &&
               page.callersModel()->tree().name(page.callersModel()->tree().child(0, 0)) == "b" &&
               page.callersModel()->deltaColumn(0, true, true) >= 0;
    }));
    CostTreeModel *m = page.callersModel();
    // In a callers tree a caller's figure is its total (the samples of b
    // through it).
    int col = m->deltaColumn(0, false, true);
    ASSERT_GE(col, 0);
    // The root is every sample in b: b's row of cpcprof diff (65/105 against 30/100).
    uint32_t root = m->tree().child(0, 0);
    EXPECT_NEAR(m->indexOfNode(root).siblingAtColumn(col).data(SortRole).toDouble(),
                (65.0 / 105 - 0.30) * 100, 1e-9);
    // Its caller a: 60/105 in NEW, 30/100 in BASE; its caller d only in NEW.
    uint32_t a = child_named(m->tree(), root, "a"), d = child_named(m->tree(), root, "d");
    ASSERT_NE(a, 0u);
    ASSERT_NE(d, 0u);
    EXPECT_NEAR(m->indexOfNode(a).siblingAtColumn(col).data(SortRole).toDouble(),
                (60.0 / 105 - 0.30) * 100, 1e-9);
    EXPECT_NEAR(m->indexOfNode(d).siblingAtColumn(col).data(SortRole).toDouble(), 5.0 / 105 * 100,
                1e-9);
    EXPECT_TRUE(m->indexOfNode(d)
                    .siblingAtColumn(col)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains("base: not there"));
}

TEST_F(DiffModel, NoCommonEventIsRefusedWithTheReason) {
    std::string other = test::make_folded_profile(dir, {"main 5"}, {{"task-clock", 1000}},
                                                  "other.cpcprof", "/opt/folded");
    ProfilePtr now = profile;
    load(other);
    std::string error;
    EXPECT_EQ(compare_profiles(profile, now, &error), nullptr);
    EXPECT_NE(error.find("no event in common"), std::string::npos) << error;
    EXPECT_NE(error.find("task-clock"), std::string::npos) << error;
}

// The tester's findings fail the test, not only print.
QtMessageHandler default_handler = nullptr;

void fail_on_model_warnings(QtMsgType type, const QMessageLogContext &context, const QString &msg) {
    if (type != QtDebugMsg && type != QtInfoMsg && context.category != nullptr &&
        QLatin1String(context.category).startsWith(QLatin1String("qt.modeltest")))
        ADD_FAILURE() << "QAbstractItemModelTester: " << msg.toStdString();
    default_handler(type, context, msg);
}

} // namespace
} // namespace cpcprof::guitest

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    cpcprof::guitest::default_handler =
        qInstallMessageHandler(cpcprof::guitest::fail_on_model_warnings);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
