// SPDX-License-Identifier: MIT
// cpcprof-gui's window driven as a user does, on profiles recorded in the
// test: what the summary says against `cpcprof report`, switching the
// event, refused files, remembered settings, the rows' context menus.
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/flame_canvas.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/summary_page.h"
#include "gui/pages/tree_page.h"
#include "tests/storage/helpers.h" // write_off_cpu_profile

#include <QApplication>
#include <QComboBox>
#include <QDropEvent>
#include <QFontMetrics>
#include <QHeaderView>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeView>
#include <QUrl>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace cpcprof::test {
namespace {

using gui::MainWindow;

// Opens path in w and waits until it is shown.
const cpcprof::analysis::FunctionInfo &function_of(const gui::FlameCanvas &c,
                                                   const gui::FlameFrame &f) {
    const auto &q = *c.profile()->query;
    return q.functions()[c.tree()->nodes()[f.node].function];
}

TEST(GuiApp, SummarySaysWhatReportSays) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    w.tabs()->setCurrentIndex(MainWindow::SummaryTab);
    QString text = w.summaryPage()->text();
    for (const char *key : {"samples", "events", "command"})
        EXPECT_TRUE(text.contains(QString::fromStdString(report_header(file, key))))
            << key << ": " << report_header(file, key) << "\nnot in the summary:\n"
            << text.toStdString();
    std::string stacks = report_header(file, "complete stacks"); // "100.0 %"
    EXPECT_TRUE(text.contains(QString::fromStdString(stacks + " complete"))) << text.toStdString();
    std::string pmu = report_header(file, "hardware PMU");
    // The page is a table: a label, then its value on the next line.
    EXPECT_TRUE(text.contains(QString::fromStdString("hardware PMU\n" + pmu)))
        << text.toStdString();
    std::string counters = report_header(file, "counters"); // "perf_event" here
    EXPECT_FALSE(counters.empty());
    EXPECT_TRUE(text.contains(QString::fromStdString("counters\n" + counters)))
        << text.toStdString();
    // The top function by self cost is the report's first row.
    auto rows = report_rows(file);
    ASSERT_FALSE(rows.empty());
    int at = text.indexOf("Top functions");
    ASSERT_GE(at, 0) << text.toStdString();
    QString top = text.mid(at);
    EXPECT_TRUE(top.contains(QString::fromStdString(rows[0]["function"]))) << top.toStdString();
    // The demo's process exited normally and the summary says so.
    EXPECT_TRUE(text.contains("cpcprof-demo: exit 0")) << text.toStdString();
}

// Cost cells read share first, then the value in its unit (ms for the
// clock, a count for page-faults); every cost column is as wide as its
// header and its widest cell, and the Function column takes the rest.
TEST(GuiApp, CostColumnsShowSharesInUnitsAndAreNeverClipped) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = two_event_profile();
    MainWindow w;
    w.resize(1500, 900);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    w.tabs()->setCurrentIndex(MainWindow::HotspotsTab);
    auto *page = qobject_cast<gui::HotspotsPage *>(w.tabs()->currentWidget());
    ASSERT_NE(page, nullptr);
    QTableView *view = page->view();
    QHeaderView *h = view->horizontalHeader();
    ASSERT_TRUE(wait_for([&] { return h->sectionSize(0) > 300; }, 5000)) << h->sectionSize(0);
    QAbstractItemModel *m = view->model();
    QFontMetrics fm = view->fontMetrics();
    int checked = 0;
    for (int c = 1; c < m->columnCount(); ++c) {
        QString header = m->headerData(c, Qt::Horizontal).toString();
        EXPECT_GE(h->sectionSize(c), h->sectionSizeHint(c)) << header.toStdString();
        for (int r = 0; r < std::min(m->rowCount(), 50); ++r) {
            QString text = m->index(r, c).data().toString();
            EXPECT_GE(h->sectionSize(c), fm.horizontalAdvance(text)) << text.toStdString();
        }
        QString top = m->index(0, c).data().toString();
        if (header == "self:cpu-clock" || header == "total:cpu-clock") {
            EXPECT_TRUE(
                QRegularExpression("^\\d+\\.\\d\\d % +[\\d,]+\\.\\d ms$").match(top).hasMatch())
                << top.toStdString();
            ++checked;
        }
        if (header == "self:page-faults" || header == "total:page-faults") {
            EXPECT_TRUE(QRegularExpression("^\\d+\\.\\d\\d % +[\\d,]+$").match(top).hasMatch())
                << top.toStdString();
            ++checked;
        }
    }
    EXPECT_EQ(checked, 4);
    int costs = 0;
    for (int c = 1; c < h->count(); ++c)
        costs += h->sectionSize(c);
    EXPECT_GE(h->sectionSize(0), view->viewport()->width() - costs - 4)
        << "the Function column takes the room the others leave";
}

TEST(GuiApp, EventSelectorDrivesFlameGraphWidths) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = two_event_profile();
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    QComboBox *events = w.eventSelector();
    ASSERT_EQ(events->count(), 2);
    EXPECT_EQ(events->itemText(0).toStdString(), "cpu-clock");
    EXPECT_EQ(events->itemText(1).toStdString(), "page-faults");
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    auto width_of = [&](const std::string &fn) {
        double wsum = 0;
        for (const gui::FlameFrame &f : canvas->layout().frames)
            if (function_of(*canvas, f).name == fn)
                wsum += f.width;
        return wsum / double(canvas->width());
    };
    auto row = report_row(file, "make_list");
    double cpu = std::stod(row["total_pct_cpu-clock"]) / 100;
    double faults = std::stod(row["total_pct_page-faults"]) / 100;
    ASSERT_GT(faults, cpu + 0.2) << "make_list should own the page faults";
    EXPECT_NEAR(width_of("make_list"), cpu, 0.002);

    events->setFocus();
    QTest::keyClick(events, Qt::Key_Down); // the user picks page-faults
    ASSERT_EQ(w.event(), 1);
    EXPECT_NEAR(width_of("make_list"), faults, 0.002);
    EXPECT_NEAR(width_of("walk_list"),
                std::stod(report_row(file, "walk_list")["total_pct_page-faults"]) / 100, 0.002);
    QTest::keyClick(events, Qt::Key_Up);
    ASSERT_EQ(w.event(), 0);
    EXPECT_NEAR(width_of("make_list"), cpu, 0.002);
}

// A recording of where the threads waited opens on wall-clock time, the
// CPU's and the waits', and says what each event is; the user can still
// pick the waits alone or the CPU alone.
TEST(GuiApp, AnOffCpuProfileOpensOnWallClockTime) {
    TempDir dir;
    const std::string file = dir.file("off.cpcprof");
    ASSERT_NO_FATAL_FAILURE(storagetest::write_off_cpu_profile(file));
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    QComboBox *events = w.eventSelector();
    ASSERT_EQ(events->count(), 4);
    EXPECT_EQ(events->itemText(2).toStdString(), "off-cpu");
    EXPECT_EQ(events->itemText(3).toStdString(), "wall-clock");
    EXPECT_EQ(w.event(), 3);
    EXPECT_EQ(events->currentText().toStdString(), "wall-clock");
    EXPECT_NE(events->itemData(3, Qt::ToolTipRole).toString().toStdString().find("cpu-clock"),
              std::string::npos);
    EXPECT_FALSE(events->itemData(2, Qt::ToolTipRole).toString().isEmpty());
    EXPECT_NE(
        w.statusBar()->currentMessage().toStdString().find("4 samples and 0.108 s off the CPU"),
        std::string::npos)
        << w.statusBar()->currentMessage().toStdString();
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    auto width_of = [&](const std::string &fn) {
        double wsum = 0;
        for (const gui::FlameFrame &f : canvas->layout().frames)
            if (function_of(*canvas, f).name == fn)
                wsum += f.width;
        return wsum / double(canvas->width());
    };
    // main: 4 ms of CPU and 100 ms of waits of the run's 111.7 ms.
    EXPECT_NEAR(width_of("main"), 104.0 / 111.7, 0.002);
    EXPECT_NEAR(width_of("compute"), 4.0 / 111.7, 0.002);
    events->setFocus();
    QTest::keyClick(events, Qt::Key_Up); // the waits alone
    ASSERT_EQ(w.event(), 2);
    EXPECT_NEAR(width_of("main"), 100.0 / 107.7, 0.002);
    EXPECT_EQ(width_of("compute"), 0.0);
}

void write_file(const std::string &path, const std::string &bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

TEST(GuiApp, RefusedFileGivesErrorDialogAndKeepsProfile) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    gui::ProfilePtr before = w.profile();
    QString title = w.windowTitle();
    size_t frames = w.flameGraph()->canvas()->layout().frames.size();
    ASSERT_GT(frames, 0u);

    TempDir dir;
    std::string good = read_file(file);
    ASSERT_GT(good.size(), 8192u);
    struct Bad {
        std::string name, bytes;
    };
    std::string flipped = good;
    for (size_t i = 4096; i < flipped.size() && i < 4096 + 2048; ++i)
        flipped[i] = char(~flipped[i]);
    for (const Bad &bad : {Bad{"text.cpcprof", "this is not a profile\n"},
                           Bad{"truncated.cpcprof", good.substr(0, good.size() / 2)},
                           Bad{"damaged.cpcprof", flipped}}) {
        SCOPED_TRACE(bad.name);
        std::string path = dir.file(bad.name);
        write_file(path, bad.bytes);
        // The reason the CLI gives for the same file.
        RunResult r = cpcprof(dir, {"report", path});
        ASSERT_NE(r.status, 0) << "cpcprof report accepted " << bad.name;
        w.openFile(QString::fromStdString(path));
        ASSERT_TRUE(wait_for([&] { return w.errorDialog() != nullptr; }));
        QMessageBox *box = w.errorDialog();
        std::string reason = box->informativeText().toStdString();
        EXPECT_NE(reason.find(path), std::string::npos) << reason;
        EXPECT_NE(r.err.find(reason), std::string::npos)
            << "dialog: " << reason << "\ncpcprof report: " << r.err;
        EXPECT_TRUE(box->text().contains(QString::fromStdString(path)));
        // The profile shown before stays, whole.
        EXPECT_EQ(w.profile(), before);
        EXPECT_EQ(w.windowTitle(), title);
        EXPECT_EQ(w.flameGraph()->canvas()->layout().frames.size(), frames);
        QTest::keyClick(box, Qt::Key_Escape);
        ASSERT_TRUE(wait_for([&] { return w.errorDialog() == nullptr; }));
    }
}

TEST(GuiApp, RemembersLastViewAndRecentFiles) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    {
        MainWindow w;
        w.show();
        ASSERT_TRUE(open_and_wait(w, file));
        w.tabs()->setCurrentIndex(MainWindow::SummaryTab);
        w.close();
    }
    MainWindow again;
    EXPECT_EQ(again.tabs()->currentIndex(), int(MainWindow::SummaryTab));
    QMenu *recent = again.findChild<QMenu *>("recentFiles");
    ASSERT_NE(recent, nullptr);
    ASSERT_FALSE(recent->actions().isEmpty());
    EXPECT_EQ(recent->actions().front()->text().toStdString(), file);
    // Open Recent opens it.
    recent->actions().front()->trigger();
    EXPECT_TRUE(wait_for([&] { return again.profile() && again.profile()->path == file; }));
}

// The first start fills most of the screen (the layouts alone ask for
// about 600 by 350 pixels); the size the user gave it is kept after.
TEST(GuiApp, FirstStartFillsMostOfTheScreenAndTheUsersSizeIsKept) {
    QSettings().remove("window/geometry");
    QSize first, users;
    {
        MainWindow w;
        w.show();
        QRect area = w.screen()->availableGeometry();
        first = w.size();
        EXPECT_GE(first.width(), std::min(1400, area.width() * 4 / 5) - 1) << area.width();
        EXPECT_GE(first.height(), std::min(900, area.height() * 4 / 5) - 1) << area.height();
        w.resize(first.width() + 100, first.height() + 50);
        users = w.size();
        w.close();
    }
    EXPECT_NE(users, first);
    MainWindow again;
    EXPECT_EQ(again.size(), users);
}

TEST(GuiApp, DroppedFileOpensAndReloadReadsItAgain) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(file))});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    ASSERT_TRUE(wait_for([&] { return w.profile() && w.profile()->path == file; }));
    gui::ProfilePtr first = w.profile();

    // Reload: the same file read again into a new profile.
    QAction *reload = nullptr;
    for (QAction *a : w.findChildren<QAction *>())
        if (a->text() == "Re&load")
            reload = a;
    ASSERT_NE(reload, nullptr);
    ASSERT_TRUE(reload->isEnabled());
    reload->trigger();
    ASSERT_TRUE(wait_for([&] { return w.profile() != first; }));
    EXPECT_EQ(w.profile()->path, file);
    EXPECT_EQ(w.profile()->query->samples_kept(), first->query->samples_kept());

    // Two files at once are not taken.
    QMimeData two;
    two.setUrls({QUrl::fromLocalFile("/a.cpcprof"), QUrl::fromLocalFile("/b.cpcprof")});
    QDragEnterEvent enter2(QPoint(50, 50), Qt::CopyAction, &two, Qt::LeftButton, Qt::NoModifier);
    enter2.setAccepted(false);
    QApplication::sendEvent(&w, &enter2);
    EXPECT_FALSE(enter2.isAccepted());
}

// File > Close (Ctrl+W) puts the window back as it starts: no profile, every
// page drawn empty; a file opens again after it.  The Help menu names
// the shortcuts, which are the actions' own.
TEST(GuiApp, CtrlWClosesTheProfileAndHelpNamesTheShortcuts) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    QAction *close = w.findChild<QAction *>("closeProfile");
    ASSERT_NE(close, nullptr);
    EXPECT_EQ(close->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_W));
    w.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_W, Qt::ControlModifier);
    EXPECT_EQ(w.profile(), nullptr);
    EXPECT_EQ(w.loadedProfile(), nullptr);
    EXPECT_EQ(w.windowTitle().toStdString(), "cpcprof-gui");
    EXPECT_EQ(w.eventSelector()->count(), 0);
    for (int tab = 0; tab < w.tabs()->count(); ++tab) {
        w.tabs()->setCurrentIndex(tab);
        QImage img = w.grab().toImage(); // each page draws without a profile
        EXPECT_FALSE(img.isNull()) << tab;
    }
    ASSERT_TRUE(open_and_wait(w, file));
    EXPECT_GT(w.profile()->query->samples_kept(), 0u);

    QStringList menus;
    for (QAction *a : w.menuBar()->actions())
        menus << a->text();
    EXPECT_TRUE(menus.contains("&Help")) << menus.join(", ").toStdString();
    QString keys = MainWindow::shortcutsText();
    for (QAction *a : w.findChildren<QAction *>()) {
        if (!a->shortcut().isEmpty()) {
            EXPECT_TRUE(keys.contains(a->shortcut().toString(QKeySequence::NativeText)))
                << a->text().toStdString() << " " << a->shortcut().toString().toStdString()
                << " is not in:\n"
                << keys.toStdString();
        }
    }
}

TEST(GuiApp, CancelDropsTheLoadAndKeepsTheWindowAsItWas) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.show();
    QSignalSpy loaded(w.loader(), &gui::ProfileLoader::loaded);
    QSignalSpy cancelled(w.loader(), &gui::ProfileLoader::cancelled);
    w.openFile(QString::fromStdString(file));
    auto *cancel = w.findChild<QPushButton *>("cancelLoad");
    ASSERT_NE(cancel, nullptr);
    ASSERT_TRUE(cancel->isVisible()) << "no Cancel while loading";
    // Clicked before the load can have come back (its result is handed
    // over by the event loop, which has not run yet).
    QTest::mouseClick(cancel, Qt::LeftButton);
    EXPECT_EQ(cancelled.count(), 1);
    EXPECT_FALSE(w.loader()->busy());
    EXPECT_FALSE(cancel->isVisible());
    // The load itself ends on its own; what it made is dropped.
    QTest::qWait(1000);
    EXPECT_EQ(loaded.count(), 0);
    EXPECT_EQ(w.profile(), nullptr);
}

TEST(GuiApp, NewerLoadDropsAnOlderOne) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &first = demo_profile();
    const std::string &second = two_event_profile();
    MainWindow w;
    w.show();
    QSignalSpy shown(&w, &MainWindow::profileShown);
    w.openFile(QString::fromStdString(first));
    w.openFile(QString::fromStdString(second));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    QTest::qWait(1000); // the first load's result, had it not been dropped
    EXPECT_EQ(shown.count(), 1);
    EXPECT_EQ(w.profile()->path, second);
    EXPECT_EQ(w.eventSelector()->count(), 2);
}

// A recording without samples (a program that ends before its first
// period) opens like any other: the flame graph says there is nothing to
// draw and is painted, the summary says 0 samples.
TEST(GuiApp, ProfileWithoutSamplesOpensAndSaysSo) {
    SKIP_WITHOUT_DEMO_RECORDING();
    TempDir dir;
    RunResult r = run_cpcprof(dir, {"record", "-q", "-o", "empty.cpcprof", "--", "/bin/true"}, 60);
    ASSERT_EQ(r.status, 0) << r.err;
    MainWindow w;
    w.resize(800, 600);
    w.show();
    ASSERT_TRUE(open_and_wait(w, dir.file("empty.cpcprof")));
    ASSERT_EQ(w.profile()->query->samples_kept(), 0u);
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    QSignalSpy painted(w.flameGraph()->canvas(), &gui::FlameCanvas::painted);
    w.flameGraph()->canvas()->repaint();
    EXPECT_EQ(painted.count(), 1);
    EXPECT_TRUE(w.flameGraph()->canvas()->layout().frames.empty());
    w.tabs()->setCurrentIndex(MainWindow::SummaryTab);
    EXPECT_TRUE(w.summaryPage()->text().contains("0 kept"))
        << w.summaryPage()->text().toStdString();
}

// The context menu of view's row at `at` (viewport coordinates).
QStringList pick_from_menu(QAbstractItemView *view, QPoint at, const QString &item) {
    return pick_from_context_menu(view->viewport(), at, item);
}

uint32_t function_of(const QModelIndex &i) {
    return i.data(gui::FunctionRole).toUInt();
}

// The Caller/Callee page's functions come sorted by total cost, the
// header saying so; in their half of the page, module and location are
// left out (the header's menu shows them), so that names and both costs
// fit without a scroll bar (a page hidden while the profile came, shown
// afterwards).
TEST(GuiApp, CallerCalleeFunctionsAreSortedAndFitted) {
    SKIP_WITHOUT_DEMO_RECORDING();
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    QApplication::processEvents();
    w.tabs()->setCurrentIndex(MainWindow::CallerCalleeTab);
    auto *page = qobject_cast<gui::CallerCalleePage *>(w.tabs()->currentWidget());
    ASSERT_NE(page, nullptr);
    QTableView *v = page->functionsView();
    QHeaderView *h = v->horizontalHeader();
    QApplication::processEvents();
    QAbstractItemModel *m = v->model();
    int total = -1;
    for (int c = 0; c < m->columnCount(); ++c)
        if (m->headerData(c, Qt::Horizontal).toString() == "total:cpu-clock")
            total = c;
    ASSERT_GE(total, 0);
    EXPECT_EQ(h->sortIndicatorSection(), total);
    ASSERT_GE(m->rowCount(), 3);
    for (int r = 1; r < m->rowCount(); ++r)
        EXPECT_GE(m->index(r - 1, total).data(gui::SortRole).toDouble(),
                  m->index(r, total).data(gui::SortRole).toDouble())
            << r;
    QFontMetrics fm = v->fontMetrics();
    for (int r = 0; r < m->rowCount(); ++r)
        for (int c = 1; c < m->columnCount(); ++c)
            if (!h->isSectionHidden(c)) {
                EXPECT_GE(h->sectionSize(c), fm.horizontalAdvance(m->index(r, c).data().toString()))
                    << m->headerData(c, Qt::Horizontal).toString().toStdString();
            }
    EXPECT_EQ(h->sectionResizeMode(0), QHeaderView::Stretch);
    for (int c = 1; c < m->columnCount(); ++c) {
        QString text = m->headerData(c, Qt::Horizontal).toString();
        EXPECT_EQ(h->isSectionHidden(c), text == "Module" || text == "Location")
            << text.toStdString();
    }
    EXPECT_LE(h->length(), v->viewport()->width()) << "a horizontal scroll bar";
    int longest = 0;
    for (int r = 0; r < std::min(m->rowCount(), 20); ++r)
        longest = std::max(longest, fm.horizontalAdvance(m->index(r, 0).data().toString()));
    EXPECT_GE(h->sectionSize(0), std::min(longest, v->viewport()->width() / 3));
}

TEST(GuiApp, RowContextMenusShowTheFunctionElsewhereAndExpandTheTree) {
    SKIP_WITHOUT_DEMO_RECORDING();
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    auto *hot = qobject_cast<gui::HotspotsPage *>(w.tabs()->widget(MainWindow::HotspotsTab));
    auto *top = qobject_cast<gui::TreePage *>(w.tabs()->widget(MainWindow::TopDownTab));
    auto *cc = qobject_cast<gui::CallerCalleePage *>(w.tabs()->widget(MainWindow::CallerCalleeTab));
    ASSERT_TRUE(hot && top && cc);

    // Hotspots: the second row, "Show elsewhere": the trees select it.
    w.tabs()->setCurrentIndex(MainWindow::HotspotsTab);
    QModelIndex second = hot->view()->model()->index(1, 0);
    ASSERT_TRUE(second.isValid());
    uint32_t fn = function_of(second);
    QStringList offered =
        pick_from_menu(hot->view(), hot->view()->visualRect(second).center(), "Show elsewhere");
    EXPECT_EQ(offered, (QStringList{"Show elsewhere", "Keep only stacks through this function",
                                    "Hide stacks through this function"}));
    EXPECT_EQ(function_of(top->view()->currentIndex()), fn);
    EXPECT_EQ(function_of(cc->functionsView()->currentIndex()), fn);
    // Off the rows, no menu (all but the first three hidden, so that the
    // bottom of the table is empty whatever the profile's number of rows).
    const int rows = hot->view()->model()->rowCount();
    for (int r = 3; r < rows; ++r)
        hot->view()->setRowHidden(r, true);
    QPoint below(5, hot->view()->viewport()->height() - 2);
    ASSERT_FALSE(hot->view()->indexAt(below).isValid());
    EXPECT_TRUE(pick_from_menu(hot->view(), below, "Show elsewhere").isEmpty());
    for (int r = 3; r < rows; ++r)
        hot->view()->setRowHidden(r, false);

    // Top-down: collapsed, then "Expand all below" on the first root.
    w.tabs()->setCurrentIndex(MainWindow::TopDownTab);
    QTreeView *tree = top->view();
    tree->collapseAll();
    QModelIndex root = tree->model()->index(0, 0);
    ASSERT_TRUE(tree->model()->hasChildren(root));
    offered = pick_from_menu(tree, tree->visualRect(root).center(), "Expand all below");
    EXPECT_EQ(offered, (QStringList{"Show elsewhere", "Expand all below",
                                    "Keep only stacks through this function",
                                    "Hide stacks through this function"}));
    size_t expanded = 0, parents = 0;
    for (QModelIndex at = root; at.isValid(); at = tree->model()->index(0, 0, at))
        if (tree->model()->hasChildren(at)) {
            ++parents;
            expanded += tree->isExpanded(at);
        }
    EXPECT_GT(parents, 1u);
    EXPECT_EQ(expanded, parents) << "every node down the first path is open";

    // Caller/callee: "Show here" on another function makes it the page's.
    w.tabs()->setCurrentIndex(MainWindow::CallerCalleeTab);
    QTableView *functions = cc->functionsView();
    QModelIndex other = functions->model()->index(0, 0);
    if (function_of(other) == fn)
        other = functions->model()->index(1, 0);
    offered = pick_from_menu(functions, functions->visualRect(other).center(), "Show here");
    EXPECT_EQ(offered, (QStringList{"Show here", "Show elsewhere"}));
    EXPECT_EQ(function_of(functions->currentIndex()), function_of(other));
}

} // namespace
} // namespace cpcprof::test
