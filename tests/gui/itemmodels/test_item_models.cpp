// SPDX-License-Identifier: MIT
// gui/itemmodels: the item models (checked with QAbstractItemModelTester), the
// proxies' filter and sort, and the pages driven through their public
// members, on folded-stack profiles and the known profile.  Offscreen.
#include "tests/gui/model/model_test_util.h"

#include "gui/itemmodels/cost_delegate.h"
#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/filter_bar.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/tree_page.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThreadPool>
#include <QTreeView>

#include <atomic>

namespace cpcprof::guitest {
namespace {

using namespace gui;

// Lines: one sample each (COUNT 1), its value of every event.
const std::vector<std::string> kFolded = {
    "main:3;a:2;b:1 1 10 5 1 10", "main:3;a:2;b:1 1 10 5 1 10", "main:3;a:2;c:4 1 10 20 0 4",
    "main:3;c:4 1 10 10 2 8", "main:3;a:2;a:2;b:1 1 10 5 0 2"};
const std::vector<std::string> kEvents = {"cycles", "instructions", "cache-misses",
                                          "cache-references"};

// Names of the rows under parent, in the model's order.
QStringList names(const QAbstractItemModel &m, const QModelIndex &parent = {}) {
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r)
        out << m.index(r, 0, parent).data().toString();
    return out;
}

// The row under parent named name (invalid if none).
QModelIndex row_named(const QAbstractItemModel &m, const QString &name,
                      const QModelIndex &parent = {}) {
    for (int r = 0; r < m.rowCount(parent); ++r)
        if (m.index(r, 0, parent).data().toString() == name)
            return m.index(r, 0, parent);
    return {};
}

struct Views : ProfileTest {
    void SetUp() override {
        ProfileTest::SetUp();
        load_folded(kEvents, kFolded);
    }
};

TEST_F(Views, TreeModelCellsHoldEveryEventAndRatio) {
    CostTreeModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Warning);
    m.setTree(top_down_tree(profile));
    EXPECT_EQ(m.columnCount(), 1 + 8 + 6);
    ASSERT_EQ(names(m), QStringList{"main"});
    QModelIndex main = m.index(0, 0);
    QModelIndex a = row_named(m, "a", main);
    ASSERT_TRUE(a.isValid());
    int total_cycles = m.eventColumn(0, CostColumn::Kind::Total);
    int self_ins = m.eventColumn(1, CostColumn::Kind::Self);
    EXPECT_EQ(m.headerData(total_cycles, Qt::Horizontal).toString(), "total:cycles");
    EXPECT_EQ(a.siblingAtColumn(total_cycles).data(SortRole).toDouble(), 40.0);
    EXPECT_DOUBLE_EQ(a.siblingAtColumn(total_cycles).data(ShareRole).toDouble(), 0.8);
    EXPECT_EQ(a.siblingAtColumn(self_ins).data(SortRole).toDouble(), 0.0);
    EXPECT_EQ(a.data(FunctionRole).toUInt(), function_named("a"));
    // total:CPI of a = 40 / 35; self CPI has no instructions: empty, sorts low.
    int cpi = m.firstCostColumn() + 8;
    EXPECT_EQ(m.headerData(cpi + 1, Qt::Horizontal).toString(), "total:CPI");
    EXPECT_EQ(a.siblingAtColumn(cpi + 1).data().toString(), QString::number(40.0 / 35, 'f', 3));
    EXPECT_EQ(a.siblingAtColumn(cpi).data().toString(), "");
    EXPECT_EQ(a.siblingAtColumn(cpi).data(SortRole).toDouble(), -1.0);
    EXPECT_FALSE(a.siblingAtColumn(cpi).data(ShareRole).isValid());
    // miss ratio in percent
    EXPECT_EQ(a.siblingAtColumn(cpi + 5).data().toString(),
              QString::number(2.0 / 26 * 100, 'f', 2) + "%");
    // parent() of a grandchild
    QModelIndex b = row_named(m, "b", a);
    EXPECT_EQ(m.parent(b), a);
    EXPECT_EQ(m.indexOfNode(m.nodeOf(b)), b);
    m.setTree({});
    EXPECT_EQ(m.rowCount(), 0);
}

TEST_F(Views, EveryModelPassesTheModelTester) {
    CostTreeModel td, bu, callers;
    HotspotTableModel table;
    CostProxy ptd, pbu, pcallers, ptable;
    ptd.setSourceModel(&td);
    pbu.setSourceModel(&bu);
    pcallers.setSourceModel(&callers);
    ptable.setSourceModel(&table);
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemModel *m : std::initializer_list<QAbstractItemModel *>{
             &td, &bu, &callers, &table, &ptd, &pbu, &pcallers, &ptable})
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            m, QAbstractItemModelTester::FailureReportingMode::Warning));
    td.setTree(top_down_tree(profile));
    bu.setTree(bottom_up_tree(profile));
    callers.setTree(callers_tree(profile, function_named("b")));
    table.setProfile(profile);
    for (CostProxy *p : {&ptd, &pbu, &pcallers, &ptable}) {
        p->sort(td.eventColumn(1, CostColumn::Kind::Total), Qt::DescendingOrder);
        QString error;
        ASSERT_TRUE(p->setFilter("c", false, &error)) << error.toStdString();
        p->sort(0, Qt::AscendingOrder);
        ASSERT_TRUE(p->setFilter("", false, &error));
    }
    load_known(); // and the known profile, with an inlined frame and a truncated stack
    td.setTree(top_down_tree(profile));
    bu.setTree(bottom_up_tree(profile));
    table.setProfile(profile);
    for (CostProxy *p : {&ptd, &pbu, &ptable}) {
        QString error;
        ASSERT_TRUE(p->setFilter("^rec", true, &error)) << error.toStdString();
    }
    EXPECT_EQ(ptable.rowCount(), 1);
    EXPECT_EQ(names(ptable), QStringList{"recurse"});
}

TEST_F(Views, ProxyFilterKeepsAncestorsOfMatches) {
    CostTreeModel m;
    CostProxy p;
    p.setSourceModel(&m);
    m.setTree(top_down_tree(profile));
    QString error;
    ASSERT_TRUE(p.setFilter("^C$", true, &error)) << error.toStdString();
    QModelIndex main = p.index(0, 0);
    ASSERT_EQ(names(p), QStringList{"main"});
    QStringList under_main = names(p, main);
    under_main.sort();
    EXPECT_EQ(under_main, (QStringList{"a", "c"}));
    EXPECT_EQ(names(p, row_named(p, "a", main)), QStringList{"c"});
    ASSERT_TRUE(p.search());
    EXPECT_EQ(p.search()->total.samples, 2u);
    EXPECT_FALSE(p.setFilter("c(", true, &error));
    EXPECT_TRUE(error.contains("invalid regular expression")) << error.toStdString();
    EXPECT_EQ(p.search()->total.samples, 2u); // the filter stays as it was
    ASSERT_TRUE(p.setFilter("", false, &error));
    EXPECT_FALSE(p.search());
    EXPECT_EQ(p.rowCount(row_named(p, "a", p.index(0, 0))), 3);
}

TEST_F(Views, ProxySortsEveryColumn) {
    CostTreeModel m;
    CostProxy p;
    p.setSourceModel(&m);
    m.setTree(top_down_tree(profile));
    // An index is good until the layout changes (a sort): asked anew.
    auto main = [&] { return p.index(0, 0); };
    p.sort(m.eventColumn(0, CostColumn::Kind::Total), Qt::DescendingOrder);
    EXPECT_EQ(names(p, main()), (QStringList{"a", "c"}));
    p.sort(m.eventColumn(0, CostColumn::Kind::Total), Qt::AscendingOrder);
    EXPECT_EQ(names(p, main()), (QStringList{"c", "a"}));
    p.sort(0, Qt::DescendingOrder);
    EXPECT_EQ(names(p, main()), (QStringList{"c", "a"}));
    // Every column sorts by its figure: the first row's is the largest.
    for (int col = m.firstCostColumn(); col < m.columnCount(); ++col) {
        p.sort(col, Qt::DescendingOrder);
        QModelIndex a = row_named(p, "a", main());
        for (int r = 1; r < p.rowCount(a); ++r)
            EXPECT_GE(p.index(r - 1, col, a).data(SortRole).toDouble(),
                      p.index(r, col, a).data(SortRole).toDouble())
                << m.headerData(col, Qt::Horizontal).toString().toStdString();
    }
}

TEST_F(Views, HotspotTableRowsAndKeys) {
    HotspotTableModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Warning);
    m.setProfile(profile);
    EXPECT_EQ(m.rowCount(), 4);
    EXPECT_EQ(m.headerData(1, Qt::Horizontal).toString(), "Module");
    int r = m.rowOfFunction(function_named("b"));
    ASSERT_GE(r, 0);
    EXPECT_EQ(m.index(r, 1).data().toString(), "folded");
    EXPECT_TRUE(m.index(r, 2).data().toString().startsWith("/src/folded.c:"));
    EXPECT_EQ(m.index(r, m.eventColumn(0, CostColumn::Kind::Self)).data(SortRole).toDouble(), 30);
    EXPECT_EQ(m.index(r, 0).data(Qt::ToolTipRole).toString().contains("60.00%"), true);
    m.setEvent(1); // instructions: b has 15 of 45
    EXPECT_TRUE(m.index(r, 0).data(Qt::ToolTipRole).toString().contains("33.33%"));
}

// Names and key columns sort as text, case-insensitively, both ways.
TEST_F(ProfileTest, HotspotTableSortsTextColumns) {
    load_known();
    HotspotTableModel m;
    CostProxy p;
    p.setSourceModel(&m);
    m.setProfile(profile);
    ASSERT_GE(p.rowCount(), 4);
    for (int col : {0, 1, 2}) {
        for (Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            p.sort(col, order);
            for (int r = 1; r < p.rowCount(); ++r) {
                QString a = p.index(r - 1, col).data().toString(),
                        b = p.index(r, col).data().toString();
                int c = QString::compare(a, b, Qt::CaseInsensitive);
                EXPECT_TRUE(order == Qt::AscendingOrder ? c <= 0 : c >= 0)
                    << col << ": " << a.toStdString() << " then " << b.toStdString();
            }
        }
    }
    p.sort(1, Qt::AscendingOrder);
    EXPECT_EQ(p.index(0, 1).data().toString(), "libx.so");
}

// The models sort themselves (CostProxy::sort passes it on; the proxy
// keeps their order): every parent's rows by the column's figure, ties as
// made in both directions, a selection kept on its row, and the order kept
// for the next profile, made before its reset ends.
TEST_F(Views, ModelsSortThemselvesAndKeepTheSortForTheNextProfile) {
    CostTreeModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Warning);
    CostProxy p;
    p.setSourceModel(&m);
    m.setTree(top_down_tree(profile));
    const int self_misses = m.eventColumn(2, CostColumn::Kind::Self);
    p.sort(self_misses, Qt::DescendingOrder);
    EXPECT_EQ(p.sortColumn(), -1) << "the proxy sorted itself";
    EXPECT_EQ(m.sortColumn(), self_misses);
    // main > {a (self 0 misses), c (self 2)}: c first; in the model too.
    EXPECT_EQ(names(m, m.index(0, 0)), (QStringList{"c", "a"}));
    EXPECT_EQ(names(p, p.index(0, 0)), (QStringList{"c", "a"}));
    // a > {b: 1 miss, c: 0, a: 0}: a and c tie; as made (c before a) both ways.
    QModelIndex a = row_named(m, "a", m.index(0, 0));
    EXPECT_EQ(names(m, a), (QStringList{"b", "c", "a"}));
    QPersistentModelIndex kept(row_named(m, "c", a));
    p.sort(self_misses, Qt::AscendingOrder);
    a = row_named(m, "a", m.index(0, 0));
    EXPECT_EQ(names(m, a), (QStringList{"c", "a", "b"}));
    ASSERT_TRUE(kept.isValid());
    EXPECT_EQ(kept.row(), 0);
    EXPECT_EQ(kept.data().toString(), "c");
    EXPECT_EQ(kept.parent().data().toString(), "a");
    // Another profile (here: the same again) comes in the kept order.
    m.setTree(top_down_tree(profile));
    EXPECT_EQ(names(m, row_named(m, "a", m.index(0, 0))), (QStringList{"c", "a", "b"}));
    // A column the model does not have: as made.
    p.sort(m.columnCount() + 3, Qt::DescendingOrder);
    EXPECT_EQ(names(m, row_named(m, "a", m.index(0, 0))), (QStringList{"b", "c", "a"}));

    HotspotTableModel t;
    QAbstractItemModelTester ttester(&t, QAbstractItemModelTester::FailureReportingMode::Warning);
    t.sortBy(t.eventColumn(0, CostColumn::Kind::Total), Qt::DescendingOrder);
    t.setProfile(profile);
    // Totals of cycles: main 50, a 40, b 30, c 20.
    EXPECT_EQ(names(t), (QStringList{"main", "a", "b", "c"}));
    EXPECT_EQ(t.index(t.rowOfFunction(function_named("c")), 0).data().toString(), "c");
    t.sortBy(t.eventColumn(0, CostColumn::Kind::Total), Qt::AscendingOrder);
    EXPECT_EQ(names(t), (QStringList{"c", "b", "a", "main"}));
    EXPECT_EQ(t.rowOfFunction(function_named("c")), 0);
}

// Every row of m under parent, depth first, as (key, parent's key).
std::vector<std::pair<quint64, quint64>> rows_of(const QAbstractItemModel &m,
                                                 const QModelIndex &parent = {}) {
    std::vector<std::pair<quint64, quint64>> out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        QModelIndex i = m.index(r, 0, parent);
        out.emplace_back(i.data(KeyRole).toULongLong(), parent.data(KeyRole).toULongLong());
        auto below = rows_of(m, i);
        out.insert(out.end(), below.begin(), below.end());
    }
    return out;
}

// The orders a profile comes with (made off the GUI thread) are the ones
// the models would make themselves for the same sort.
TEST_F(Views, OrdersMadeWithTheProfileAreTheModelsOwnSort) {
    auto bare = new_profile_data({});
    std::string error;
    bare->query = analysis::Query::open(profile->path, {}, &error, {true});
    ASSERT_TRUE(bare->query) << error;
    std::atomic<bool> cancel{false};
    ASSERT_TRUE(build_views(*bare, cancel, &error)) << error;
    ASSERT_TRUE(bare->top_down_order && bare->hotspots_by_self);
    bare->top_down_order.reset();
    bare->bottom_up_order.reset();
    bare->hotspots_by_self.reset();
    bare->hotspots_by_total.reset();
    ProfilePtr without = bare;
    for (auto kind : {CostColumn::Kind::Self, CostColumn::Kind::Total}) {
        HotspotTableModel made, sorted;
        for (HotspotTableModel *m : {&made, &sorted})
            m->sortBy(made.eventColumn(0, kind), Qt::DescendingOrder);
        made.setProfile(profile);
        sorted.setProfile(without);
        ASSERT_EQ(made.columnCount(), sorted.columnCount());
        EXPECT_EQ(rows_of(made), rows_of(sorted));
        EXPECT_EQ(names(made), names(sorted));
    }
    for (auto make : {top_down_tree, bottom_up_tree}) {
        CostTreeModel made, sorted;
        made.setTree(make(profile));
        const int total = made.eventColumn(0, CostColumn::Kind::Total);
        made.setTree({});
        for (CostTreeModel *m : {&made, &sorted})
            m->sortBy(total, Qt::DescendingOrder);
        made.setTree(make(profile));
        sorted.setTree(make(without));
        EXPECT_EQ(rows_of(made), rows_of(sorted));
    }
}

TEST(CostDelegateBars, WidthFollowsShare) {
    QRect cell(0, 0, 102, 20);
    EXPECT_EQ(CostDelegate::barRect(cell, 0.5).width(), 50);
    EXPECT_EQ(CostDelegate::barRect(cell, 2).width(), 100);
    EXPECT_EQ(CostDelegate::barRect(cell, -1).width(), 0);
}

// x has the cycles, y the instructions: switching the event reorders.
const std::vector<std::string> kTwo = {"main:2;x:1 1 10 1", "main:2;y:3 1 10 5",
                                       "main:2;x:1 1 10 1"};

TEST_F(ProfileTest, TreePageEventSwitchReordersAndSelectReveals) {
    load_folded({"cycles", "instructions"}, kTwo);
    TreePage page(TreePage::Kind::TopDown);
    QAbstractItemModelTester tester(page.view()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    page.setProfile(profile);
    QAbstractItemModel *p = page.view()->model();
    EXPECT_EQ(names(*p, p->index(0, 0)), (QStringList{"x", "y"}));
    page.setEvent(1);
    EXPECT_EQ(page.view()->header()->sortIndicatorSection(),
              page.model()->eventColumn(1, CostColumn::Kind::Total));
    EXPECT_EQ(names(*p, p->index(0, 0)), (QStringList{"y", "x"})); // asked anew after the sort
    page.view()->collapseAll();
    page.selectFunction(function_named("x"));
    QModelIndex cur = page.view()->currentIndex();
    EXPECT_EQ(cur.data(FunctionRole).toUInt(), function_named("x"));
    EXPECT_TRUE(page.view()->isExpanded(cur.parent()));
    // Typing a filter states the share of the chosen event.
    page.filterBar()->edit()->setText("y");
    EXPECT_EQ(names(*p, p->index(0, 0)), QStringList{"y"});
    EXPECT_TRUE(page.filterBar()->status()->text().contains("71.43% of instructions"))
        << page.filterBar()->status()->text().toStdString();
    page.selectFunction(function_named("x")); // filtered out: the filter goes
    EXPECT_EQ(page.view()->currentIndex().data(FunctionRole).toUInt(), function_named("x"));
    EXPECT_TRUE(page.filterBar()->edit()->text().isEmpty());
    QSignalSpy spy(&page, &TreePage::functionActivated);
    emit page.view()->doubleClicked(page.view()->currentIndex());
    ASSERT_EQ(spy.count(), 1);
    EXPECT_EQ(spy.at(0).at(0).toUInt(), function_named("x"));
    page.setProfile(nullptr);
    EXPECT_EQ(p->rowCount(), 0);
}

// The delegate paints bars as wide as the share, in the heat colour of
// the share: at 50 % of the cell the row with 2/3 of the cycles is
// painted, the row with 1/3 is not; at the left both are, the larger share
// redder.  (Read on the bar's top line, above the text.)
TEST_F(ProfileTest, CostCellsShowBarsOfTheirShare) {
    load_folded({"cycles", "instructions"}, kTwo);
    TreePage page(TreePage::Kind::TopDown);
    page.resize(1400, 400);
    page.setProfile(profile);
    page.show();
    QCoreApplication::processEvents();
    QTreeView *v = page.view();
    QAbstractItemModel *p = v->model();
    int col = page.model()->eventColumn(0, CostColumn::Kind::Total);
    QModelIndex main = p->index(0, 0);
    QModelIndex x = row_named(*p, "x", main).siblingAtColumn(col);
    QModelIndex y = row_named(*p, "y", main).siblingAtColumn(col);
    ASSERT_TRUE(x.isValid() && y.isValid());
    QRect rx = v->visualRect(x), ry = v->visualRect(y);
    ASSERT_FALSE(rx.isEmpty());
    QImage img = v->viewport()->grab().toImage();
    auto at = [&](const QRect &r, double f) {
        QRect bar = CostDelegate::barRect(r, 1.0);
        return img.pixelColor(bar.left() + int(bar.width() * f), bar.top()).rgb();
    };
    QRgb hot = CostDelegate::heatColour(2.0 / 3).rgb(),
         warm = CostDelegate::heatColour(1.0 / 3).rgb();
    EXPECT_EQ(at(rx, 0.02), hot);
    EXPECT_EQ(at(ry, 0.02), warm);
    EXPECT_EQ(at(rx, 0.5), hot);
    EXPECT_NE(at(ry, 0.5), warm); // y's bar ends at a third
    EXPECT_LT(QColor(hot).hueF(), QColor(warm).hueF()) << "the larger share is redder";
    // The cell reads the share first, then the value.
    EXPECT_TRUE(x.data().toString().startsWith("66.67 %")) << x.data().toString().toStdString();
    // Selected, its text is the highlight's (white): the bar gives way to a
    // strip under the text, the highlight behind it.
    v->setCurrentIndex(x);
    QCoreApplication::processEvents();
    img = v->viewport()->grab().toImage();
    QRect bar = CostDelegate::barRect(v->visualRect(x), 1.0);
    EXPECT_NE(img.pixelColor(bar.left() + 2, bar.center().y()).rgb(), hot);
    EXPECT_EQ(img.pixelColor(bar.left() + 2, bar.bottom()).rgb(), hot);
}

TEST_F(Views, BottomUpPageAndHotspotsPage) {
    TreePage bu(TreePage::Kind::BottomUp);
    bu.setProfile(profile);
    EXPECT_TRUE(bu.error().isEmpty());
    EXPECT_EQ(names(*bu.view()->model()), (QStringList{"b", "c"}));
    HotspotsPage hp;
    QAbstractItemModelTester tester(hp.view()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    hp.setProfile(profile);
    QAbstractItemModel *m = hp.view()->model();
    EXPECT_EQ(m->rowCount(), 4);
    EXPECT_EQ(m->index(0, 0).data().toString(), "b"); // most self cycles
    hp.filterBar()->regex()->setChecked(true);
    hp.filterBar()->edit()->setText("^(a|b)$");
    EXPECT_EQ(m->rowCount(), 2);
    EXPECT_TRUE(hp.filterBar()->status()->text().contains("80.00%"))
        << hp.filterBar()->status()->text().toStdString();
    hp.filterBar()->edit()->setText("^(a|b");
    EXPECT_TRUE(hp.filterBar()->status()->text().contains("invalid regular expression"));
    hp.selectFunction(function_named("c"));
    EXPECT_EQ(hp.view()->currentIndex().data(FunctionRole).toUInt(), function_named("c"));
}

// A profile whose bottom-up tree was too large to build: the page says why.
TEST_F(Views, BottomUpPageStatesWhyThereIsNoTree) {
    auto data = std::const_pointer_cast<ProfileData>(profile); // this test's own
    data->bottom_up.reset();
    data->bottom_up_error = "bottom-up tree: 2000000 nodes, more than 1048576";
    TreePage page(TreePage::Kind::BottomUp);
    page.setProfile(profile);
    EXPECT_EQ(page.error().toStdString(), data->bottom_up_error);
    EXPECT_EQ(page.view()->model()->rowCount(), 0);
    page.selectFunction(function_named("b")); // nothing to select, no harm
    EXPECT_FALSE(page.view()->currentIndex().isValid());
}

TEST_F(Views, CallerCalleePageShowsTheSelectedFunction) {
    CallerCalleePage page;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemView *v : std::initializer_list<QAbstractItemView *>{
             page.functionsView(), page.callersView(), page.calleesView()})
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            v->model(), QAbstractItemModelTester::FailureReportingMode::Warning));
    QSignalSpy shown(&page, &CallerCalleePage::treesShown);
    page.setProfile(profile);
    // It opens on the function with the most self cost of the event: b
    // (3 samples of 10 cycles, against c's 2).
    ASSERT_EQ(page.function(), function_named("b"));
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_EQ(shown.at(0).at(0).toUInt(), function_named("b"));
    QAbstractItemModel *callers = page.callersView()->model();
    ASSERT_EQ(names(*callers), QStringList{"b"});
    QModelIndex b = callers->index(0, 0);
    EXPECT_EQ(names(*callers, b), QStringList{"a"});
    int total = page.callersModel()->eventColumn(0, CostColumn::Kind::Total);
    EXPECT_EQ(b.siblingAtColumn(total).data(SortRole).toDouble(), 30);
    QAbstractItemModel *callees = page.calleesView()->model();
    ASSERT_EQ(names(*callees), QStringList{"b"});
    EXPECT_EQ(callees->rowCount(callees->index(0, 0)), 0);
    // Double-clicking a caller makes it the function shown.
    emit page.callersView()->doubleClicked(callers->index(0, 0, b));
    EXPECT_EQ(page.function(), function_named("a"));
    ASSERT_TRUE(shown.wait(10000));
    EXPECT_EQ(page.functionsView()->currentIndex().data(FunctionRole).toUInt(),
              function_named("a"));
    QStringList under_a =
        names(*page.calleesView()->model(), page.calleesView()->model()->index(0, 0));
    under_a.sort();
    EXPECT_EQ(under_a, (QStringList{"a", "b", "c"}));
}

// A function chosen while the trees of the one before are still being
// made: only the last one's trees are shown.
TEST_F(Views, CallerCalleePageDropsStaleTrees) {
    CallerCalleePage page;
    page.setProfile(profile);
    QSignalSpy shown(&page, &CallerCalleePage::treesShown);
    page.selectFunction(function_named("b"));
    page.selectFunction(function_named("c"));
    ASSERT_TRUE(shown.wait(10000));
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents(); // any result still on its way
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    ASSERT_EQ(shown.count(), 1);
    EXPECT_EQ(shown.at(0).at(0).toUInt(), function_named("c"));
    EXPECT_EQ(names(*page.callersView()->model()), QStringList{"c"});
}

} // namespace
} // namespace cpcprof::guitest

namespace {

// QAbstractItemModelTester (Warning mode) reports through qWarning in the
// category qt.modeltest: each report fails the running test.
QtMessageHandler default_handler = nullptr;

void fail_on_model_warnings(QtMsgType type, const QMessageLogContext &context, const QString &msg) {
    if (type != QtDebugMsg && type != QtInfoMsg && context.category != nullptr &&
        QLatin1String(context.category).startsWith(QLatin1String("qt.modeltest")))
        ADD_FAILURE() << "QAbstractItemModelTester: " << msg.toStdString();
    default_handler(type, context, msg);
}

} // namespace

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    default_handler = qInstallMessageHandler(fail_on_model_warnings);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
