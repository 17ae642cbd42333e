// SPDX-License-Identifier: MIT
// The columns of the viewer's tables, driven as a user does: a column
// hidden from the header's menu and a width given by hand stay so across
// page switches and restarts; on the Source page, cost columns give way so
// that the source keeps 60 characters, and the header's menu brings them
// back.
#include "tests/gui/app/gui_harness.h"
#include "tests/support/folded_profile.h"

#include "gui/app/main_window.h"
#include "gui/itemmodels/source_models.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/source_page.h"

#include <QApplication>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLabel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

namespace cpcprof::test {
namespace {

using gui::MainWindow;

int section_named(const QHeaderView *h, const QString &text) {
    for (int c = 0; c < h->count(); ++c)
        if (h->model()->headerData(c, Qt::Horizontal).toString() == text)
            return c;
    return -1;
}

// Right-clicks the header and picks item (a column's check box, or "Show
// all ..."); what the menu offered.
QStringList header_menu(QHeaderView *h, const QString &item) {
    return pick_from_context_menu(h->viewport(), QPoint(10, h->height() / 2), item);
}

QHeaderView *hotspots_header(MainWindow &w) {
    w.tabs()->setCurrentIndex(MainWindow::HotspotsTab);
    auto *page = qobject_cast<gui::HotspotsPage *>(w.tabs()->currentWidget());
    return page ? page->view()->horizontalHeader() : nullptr;
}

TEST(GuiColumns, HiddenColumnsAndWidthsStayAcrossPagesAndRestarts) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = two_event_profile();
    ASSERT_FALSE(file.empty());
    const QString gone = "total:page-faults", wide = "self:cpu-clock";
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ASSERT_TRUE(open_and_wait(w, file));
        QHeaderView *h = hotspots_header(w);
        ASSERT_NE(h, nullptr);
        ASSERT_TRUE(wait_for([&] { return section_named(h, gone) >= 0; }));
        int c = section_named(h, gone);
        EXPECT_FALSE(h->isSectionHidden(c));
        // The full name and what the column counts, in the tooltip.
        QString tip = h->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
        EXPECT_TRUE(tip.contains(gone)) << tip.toStdString();
        QStringList offered = header_menu(h, gone);
        EXPECT_TRUE(offered.contains(wide)) << offered.join(", ").toStdString();
        EXPECT_TRUE(h->isSectionHidden(c)) << "unticked in the header's menu";
        // A width given by hand: the section's right edge dragged.
        int s = section_named(h, wide);
        ASSERT_GE(s, 0);
        const int y = h->height() / 2;
        const int edge = h->sectionViewportPosition(s) + h->sectionSize(s) - 1;
        const int by = 333 - h->sectionSize(s);
        QTest::mousePress(h->viewport(), Qt::LeftButton, {}, QPoint(edge, y));
        for (int step = 1; step <= 4; ++step)
            QTest::mouseMove(h->viewport(), QPoint(edge + by * step / 4, y));
        QTest::mouseRelease(h->viewport(), Qt::LeftButton, {}, QPoint(edge + by, y));
        ASSERT_EQ(h->sectionSize(s), 333) << "the drag did not resize the column";
        // A resize by the code (a reset, a fit) is not a person's choice.
        int other = section_named(h, "total:cpu-clock");
        ASSERT_GE(other, 0);
        h->resizeSection(other, 222);

        w.tabs()->setCurrentIndex(MainWindow::TopDownTab);
        w.tabs()->setCurrentIndex(MainWindow::HotspotsTab);
        EXPECT_TRUE(h->isSectionHidden(c));
        EXPECT_EQ(h->sectionSize(s), 333);
        // A new event's sort rebuilds the rows: the choices stay.
        w.openFile(QString::fromStdString(file));
        ASSERT_TRUE(wait_for([&] { return !w.loader()->busy(); }));
        wait_for([] { return false; }, 200); // the fit after the reset
        EXPECT_TRUE(h->isSectionHidden(section_named(h, gone)));
        EXPECT_EQ(h->sectionSize(section_named(h, wide)), 333);
        EXPECT_NE(h->sectionSize(section_named(h, "total:cpu-clock")), 222)
            << "a width set by the code was kept as a person's";
    }
    {
        // Restarted: the same.
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        ASSERT_TRUE(open_and_wait(w, file));
        QHeaderView *h = hotspots_header(w);
        ASSERT_NE(h, nullptr);
        ASSERT_TRUE(wait_for(
            [&] {
                int c = section_named(h, gone);
                return c >= 0 && h->isSectionHidden(c) &&
                       h->sectionSize(section_named(h, wide)) == 333;
            },
            5000))
            << "the choices were not kept over a restart";
        // "Show all" forgets them.
        header_menu(h, "Show all, fitted to their contents");
        EXPECT_FALSE(h->isSectionHidden(section_named(h, gone)));
        EXPECT_NE(h->sectionSize(section_named(h, wide)), 333);
    }
}

// Two events make four cost columns: in a narrow window they give way on
// the Source page so that the source keeps 60 characters, the chosen
// event's self last of all; the page says so, and a column shown again
// from the header's menu stays shown.
TEST(GuiColumns, SourceKeepsSixtyCharactersWhenColumnsAreMany) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = two_event_profile();
    ASSERT_FALSE(file.empty());
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1000, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    std::vector<uint32_t> fns = w.profile()->query->find_functions("walk_list");
    ASSERT_EQ(fns.size(), 1u);
    w.showSource(fns[0]);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fns[0] &&
               page->disassemblyModel()->view() &&
               page->disassemblyModel()->view()->function == fns[0];
    }));
    QTableView *src = page->sourceView();
    QHeaderView *h = src->horizontalHeader();
    const int text = page->sourceModel()->textColumn();
    auto text_room = [&] {
        int used = 0;
        for (int c = 0; c < h->count(); ++c)
            if (c != text && !h->isSectionHidden(c))
                used += h->sectionSize(c);
        return src->viewport()->width() - used;
    };
    const int sixty = 60 * QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont))
                               .horizontalAdvance(QLatin1Char('x'));
    ASSERT_GT(page->collapsedColumns(), 0)
        << "four cost columns fit beside 60 characters in " << src->viewport()->width() << " px";
    const int self = section_named(h, "self:cpu-clock");
    ASSERT_GE(self, 0);
    EXPECT_FALSE(h->isSectionHidden(self)) << "the chosen event's self stays";
    int visible_costs = 0;
    for (int c = 1; c < text; ++c)
        visible_costs += !h->isSectionHidden(c) && c != 1; // 1: the "Hot" column
    EXPECT_TRUE(text_room() >= sixty || visible_costs == 1)
        << text_room() << " px left for the source, " << visible_costs << " cost columns shown";
    EXPECT_TRUE(page->columnsNote()->text().contains("hidden"))
        << page->columnsNote()->text().toStdString();

    // The person wants total:page-faults: shown, and kept on the next fill.
    const int pf = section_named(h, "total:page-faults");
    ASSERT_GE(pf, 0);
    ASSERT_TRUE(h->isSectionHidden(pf)) << "the other event's total gives way first";
    header_menu(h, "total:page-faults");
    EXPECT_FALSE(h->isSectionHidden(pf));
    bool refilled = false;
    auto conn = QObject::connect(page, &gui::SourcePage::sourceShown, [&] { refilled = true; });
    page->setRoots(page->roots()); // the page is filled again
    ASSERT_TRUE(wait_for([&] { return refilled; }));
    QObject::disconnect(conn);
    EXPECT_FALSE(h->isSectionHidden(section_named(h, "total:page-faults")));
    header_menu(h, "Show all, fitted to their contents"); // leave no choice behind
}

// A page not shown when a profile comes fits its columns when it is
// shown: after a profile with small figures and then one with wide ones
// (opened while the flame graph was in front), no cell of the Hotspots
// page is clipped.
TEST(GuiColumns, APageHiddenWhileAProfileCameFitsWhenShown) {
    TempDir dir("cpcprof-gui-columns");
    const std::vector<FoldedEvent> events = {{"task-clock", 1000}, {"page-faults", 0}};
    std::string small =
        make_folded_profile(dir.path(), {"main;f 1 1000 1"}, events, "small.cpcprof", "/opt/p");
    std::string wide = make_folded_profile(
        dir.path(), {"main;a_function_of_a_longer_name 3 1000 123456789012", "main;g 1 1000 1"},
        events, "wide.cpcprof", "/opt/p");
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(open_and_wait(w, small));
    QHeaderView *h = hotspots_header(w); // shown, and fitted to the small figures
    ASSERT_NE(h, nullptr);
    QApplication::processEvents();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    ASSERT_TRUE(open_and_wait(w, wide));
    QApplication::processEvents();
    h = hotspots_header(w);
    QApplication::processEvents();
    auto *view = qobject_cast<QTableView *>(h->parent());
    ASSERT_NE(view, nullptr);
    QAbstractItemModel *m = view->model();
    ASSERT_EQ(m->rowCount(), 3); // main, the long one, g
    QFontMetrics fm = view->fontMetrics();
    for (int c = 1; c < m->columnCount(); ++c)
        for (int r = 0; r < m->rowCount(); ++r) {
            QString text = m->index(r, c).data().toString();
            EXPECT_GE(h->sectionSize(c), fm.horizontalAdvance(text))
                << m->headerData(c, Qt::Horizontal).toString().toStdString() << ": "
                << text.toStdString();
        }
}

} // namespace
} // namespace cpcprof::test
