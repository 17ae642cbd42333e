// SPDX-License-Identifier: MIT
// Screenshots of every page of cpcprof-gui on a real recording of
// cpcprof-demo, under Xvfb (the test is run by xvfb-run): each is saved
// as a PNG in SCREENSHOT_DIR (kept as the test's artefacts; the README's
// docs/cpcprof-gui-flamegraph.png is the flame graph one), is not blank,
// and the flame graph's largest frames are where the data says.
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/app/record_dialog.h"
#include "gui/itemmodels/source_models.h"
#include "gui/model/source_view.h"
#include "gui/pages/cost_overview.h"
#include "gui/pages/filter_stack_bar.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/source_page.h"
#include "gui/pages/timeline_page.h"

#include <QCheckBox>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QImage>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSet>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace cpcprof::test {
namespace {

using gui::MainWindow;

// Distinct colours, and the share of pixels unlike the most common one.
struct Ink {
    int colours = 0;
    double inked = 0;
};
Ink ink_of(const QImage &img) {
    QHash<QRgb, int> count;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2)
            ++count[img.pixel(x, y)];
    int most = 0, all = 0;
    for (int n : count) {
        most = std::max(most, n);
        all += n;
    }
    return {int(count.size()), all ? 1.0 - double(most) / all : 0};
}

// The Source page showing the function with the most self cost, its
// source and disassembly filled.
void show_hottest_source(MainWindow &w) {
    const auto &q = *w.profile()->query;
    uint32_t hot = 0;
    for (uint32_t f = 0; f < q.functions().size(); ++f)
        if (q.function_self()[f].values.at(0) > q.function_self()[hot].values.at(0))
            hot = f;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.showSource(hot);
    gui::SourcePage *page = w.sourcePage();
    EXPECT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == hot &&
               page->disassemblyModel()->view() &&
               page->disassemblyModel()->view()->function == hot;
    }));
}

TEST(GuiScreenshots, EveryPageIsDrawnAndFlameGraphMatchesData) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));

    for (int tab = 0; tab < w.tabs()->count(); ++tab) {
        // "Caller/Callee" -> callercallee.png
        QString name = w.tabs()->tabText(tab).toLower().remove(QRegularExpression("[^a-z0-9]"));
        SCOPED_TRACE(name.toStdString());
        if (tab == MainWindow::SourceTab)
            show_hottest_source(w);
        w.tabs()->setCurrentIndex(tab);
        wait_for([] { return false; }, 200); // let it paint
        QImage img = w.grab().toImage();
        QString path = QString(SCREENSHOT_DIR) + "/" + name + ".png";
        ASSERT_TRUE(img.save(path)) << path.toStdString();
        std::printf("screenshot: %s\n", qPrintable(path));
        // The page alone, without the window's menus and bars around it.
        Ink ink = ink_of(w.tabs()->currentWidget()->grab().toImage());
        EXPECT_GT(ink.colours, 4) << path.toStdString() << " looks blank";
        EXPECT_GT(ink.inked, 0.002) << path.toStdString() << " looks blank";
        std::printf("  %d colours, %.1f %% inked\n", ink.colours, ink.inked * 100);
    }

    // The flame graph alone, checked against the top-down tree itself.
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    wait_for([] { return false; }, 200);
    QImage img = canvas->grab().toImage();
    ASSERT_TRUE(img.save(QString(SCREENSHOT_DIR) + "/flamegraph-canvas.png"));
    const cpcprof::analysis::CallTree &tree = *canvas->profile()->top_down;
    const auto &nodes = tree.nodes();
    std::vector<uint32_t> roots = nodes[0].children;
    std::sort(roots.begin(), roots.end(), [&](uint32_t a, uint32_t b) {
        return nodes[a].total.values[0] > nodes[b].total.values[0];
    });
    ASSERT_GE(roots.size(), 2u);
    double whole = double(nodes[0].total.values[0]);
    double W = canvas->width();
    int row_h = canvas->rowHeight();
    // The graph starts at the top of the page: roots sit on its bottom
    // row (rows - 1 rows down), largest first from the left.
    int graph_h = int(canvas->layout().rows) * row_h;
    double x = 0;
    for (size_t i = 0; i < 2; ++i) {
        uint32_t r = roots[i];
        double w_px = double(nodes[r].total.values[0]) / whole * W;
        ASSERT_GT(w_px, 40) << "root " << i << " too narrow to check";
        int y = graph_h - row_h + 1;
        QColor want = canvas->fillColour(r);
        for (double px : {x + 3, x + w_px / 2, x + w_px - 3})
            EXPECT_EQ(img.pixelColor(int(px), y).rgb(), want.rgb())
                << "root " << i << " at x=" << px << " y=" << y;
        x += w_px;
    }
    // Right of the roots (they do not fill the width only with sub-pixel
    // roots left out): background.
    if (x < W - 4) {
        EXPECT_EQ(img.pixelColor(int(W) - 2, graph_h - row_h + 1).rgb(),
                  canvas->palette().color(QPalette::Base).rgb());
    }
    // Below the roots' row, the rest of the page: nothing.
    int below_y = graph_h + 2;
    if (below_y < canvas->height()) {
        for (int px = 0; px < int(W); px += 50)
            EXPECT_EQ(img.pixelColor(px, below_y).rgb(),
                      canvas->palette().color(QPalette::Base).rgb());
    }
}

// The flame graph zoomed, searched and inverted, for a person to look at
// (artefacts; each checked not blank and showing what was asked).
TEST(GuiScreenshots, FlameGraphStates) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    gui::FlameGraph *flame = w.flameGraph();
    gui::FlameCanvas *canvas = flame->canvas();
    auto shot = [&](const char *name) {
        wait_for([] { return false; }, 200);
        QImage img = w.grab().toImage();
        QString path = QString(SCREENSHOT_DIR) + "/" + name + ".png";
        EXPECT_TRUE(img.save(path)) << path.toStdString();
        std::printf("screenshot: %s\n", qPrintable(path));
        EXPECT_GT(ink_of(canvas->grab().toImage()).inked, 0.01) << name << " looks blank";
    };
    const auto &functions = canvas->profile()->query->functions();
    uint32_t walk = 0;
    for (const gui::FlameFrame &f : canvas->layout().frames)
        if (functions[canvas->tree()->nodes()[f.node].function].name == "walk_list")
            walk = f.node;
    ASSERT_NE(walk, 0u);
    canvas->zoomTo(walk);
    shot("flamegraph-zoomed");
    EXPECT_TRUE(flame->breadcrumb().endsWith("walk_list"));
    canvas->zoomOut();
    flame->findChild<QLineEdit *>("flameSearch")->setText("list");
    ASSERT_TRUE(wait_for([&] { return flame->search() && flame->search()->pattern == "list"; }));
    shot("flamegraph-search");
    flame->findChild<QLineEdit *>("flameSearch")->clear();
    flame->findChild<QCheckBox *>("flameInverted")->click();
    ASSERT_TRUE(canvas->inverted());
    shot("flamegraph-inverted");
}

// The Source page of the hottest function, for a person to look at: the
// hottest line's row is painted in the hot colour, the overview has ink.
TEST(GuiScreenshots, SourcePage) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    MainWindow w;
    w.resize(1600, 900);
    w.show();
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    show_hottest_source(w);
    wait_for([] { return false; }, 300); // let it paint
    QImage img = w.grab().toImage();
    QString path = QString(SCREENSHOT_DIR) + "/source-page.png";
    ASSERT_TRUE(img.save(path)) << path.toStdString();
    std::printf("screenshot: %s\n", qPrintable(path));
    gui::SourcePage *page = w.sourcePage();
    QTableView *lines = page->sourceView();
    QModelIndex cur = lines->currentIndex();
    ASSERT_TRUE(cur.isValid());
    EXPECT_EQ(page->sourceModel()->view()->lines[size_t(cur.row())].hot_rank, 1);
    // Away from the selection, a hot line other than #1 shows its colour;
    // the #1 row is selected (highlighted), so look at the overview instead.
    Ink overview = ink_of(page->overview()->grab().toImage());
    EXPECT_GT(overview.inked, 0.001);
    Ink whole = ink_of(page->grab().toImage());
    EXPECT_GT(whole.colours, 4);
}

// The timeline with a range selected, then filtered in on it (the bar
// above the views, the time outside shaded) and the flame graph of the
// range; the bars of each thread's row are where its samples are.
TEST(GuiScreenshots, TimelineAndFilteredViews) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    MainWindow w;
    w.resize(1200, 500);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    gui::TimelineView *view = w.timelinePage()->view();
    auto shot = [&](const char *name, QWidget *check) {
        wait_for([] { return false; }, 200);
        QImage img = w.grab().toImage();
        QString path = QString(SCREENSHOT_DIR) + "/" + name + ".png";
        EXPECT_TRUE(img.save(path)) << path.toStdString();
        std::printf("screenshot: %s\n", qPrintable(path));
        Ink ink = ink_of(check->grab().toImage());
        EXPECT_GT(ink.colours, 4) << name << " looks blank";
        EXPECT_GT(ink.inked, 0.01) << name << " looks blank";
    };
    wait_for([] { return false; }, 200);
    // Each thread row: a column with samples has a bar at the row's
    // bottom, a column without none (the base colour).
    QImage img = view->grab().toImage();
    const gui::Timeline &t = view->timeline();
    const auto &bins = view->densities();
    const QRgb base = view->palette().color(QPalette::Base).rgb();
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (t.rows[r].process)
            continue;
        int y = view->yOfRow(r) + 22 / 2 - 2; // the bars' bottom: above the row's line
        int filled = 0, empty = 0;
        for (size_t c = 0; c < bins[r].size(); ++c) {
            QRgb px = img.pixel(view->binX(c), y);
            if (bins[r][c] > 0) {
                EXPECT_NE(px, base) << "row " << r << " column " << c;
                ++filled;
            } else {
                EXPECT_EQ(px, base) << "row " << r << " column " << c;
                ++empty;
            }
        }
        EXPECT_GT(filled, 0) << "row " << r;
        std::printf("  row %zu (%s): %d columns with samples, %d without\n", r,
                    t.rows[r].label.c_str(), filled, empty);
    }
    const int y = view->yOfRow(1);
    const int x0 = view->xOfTime(t.duration_ns / 5), x1 = view->xOfTime(t.duration_ns / 2);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(x0, y));
    QTest::mouseMove(view, QPoint(x0 + 10, y));
    QTest::mouseMove(view, QPoint(x1, y));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(x1, y));
    ASSERT_TRUE(view->selectedRange());
    shot("timeline-selected", view);
    w.timelinePage()->filterIn();
    ASSERT_TRUE(wait_for([&] { return !w.filtering() && w.filters().size() == 1; }));
    ASSERT_TRUE(w.filterBar()->isVisible());
    shot("timeline-filtered", view);
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    shot("flamegraph-filtered", w.flameGraph()->canvas());
}

// Two recordings of cpcprof-demo compared (--base): the flame graph of the
// second coloured by change, and the Comparison page.  Each frame's pixels
// are the colour the canvas gives it, a colour of the change palette
// (grey, or red or blue with the other two components equal).
TEST(GuiScreenshots, ComparedWithABase) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &base = demo_profile(), &now = two_event_profile();
    ASSERT_FALSE(base.empty() || now.empty());
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    w.openFile(QString::fromStdString(now));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    w.compareWith(QString::fromStdString(base));
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    ASSERT_TRUE(wait_for([&] { return canvas->diff() != nullptr; }));
    wait_for([] { return false; }, 200);
    QString path = QString(SCREENSHOT_DIR) + "/flamegraph-diff.png";
    ASSERT_TRUE(w.grab().toImage().save(path));
    std::printf("screenshot: %s\n", qPrintable(path));
    QImage img = canvas->grab().toImage();
    EXPECT_GT(ink_of(img).inked, 0.01) << "the diff flame graph looks blank";
    int checked = 0;
    for (const gui::FlameFrame &f : canvas->layout().frames) {
        QRectF r = canvas->frameRect(f);
        if (r.width() < 8)
            continue;
        QColor want = canvas->fillColour(f.node);
        bool palette = (want.red() == 220 && want.green() == 220 && want.blue() == 220) ||
                       (want.green() == want.blue() && want.red() > want.green()) ||
                       (want.red() == want.green() && want.blue() > want.red());
        EXPECT_TRUE(palette) << "frame " << f.node << " is " << want.name().toStdString();
        QPoint at(int(r.left()) + 2, int(r.center().y()));
        EXPECT_EQ(img.pixelColor(at).rgb(), want.rgb()) << "frame " << f.node;
        ++checked;
    }
    EXPECT_GT(checked, 3);
    w.tabs()->setCurrentIndex(MainWindow::TopDownTab);
    wait_for([] { return false; }, 200);
    path = QString(SCREENSHOT_DIR) + "/topdown-diff.png";
    ASSERT_TRUE(w.grab().toImage().save(path));
    std::printf("screenshot: %s\n", qPrintable(path));
    for (int tab = 0; tab < w.tabs()->count(); ++tab)
        if (w.tabs()->tabText(tab) == "Comparison")
            w.tabs()->setCurrentIndex(tab);
    wait_for([] { return false; }, 200);
    path = QString(SCREENSHOT_DIR) + "/comparison.png";
    ASSERT_TRUE(w.grab().toImage().save(path));
    std::printf("screenshot: %s\n", qPrintable(path));
    EXPECT_GT(ink_of(w.tabs()->currentWidget()->grab().toImage()).inked, 0.002);
}

// File > Record's dialog after recording cpcprof-demo: the fields, the
// events cpcprof list names, the recorder's output.
TEST(GuiScreenshots, RecordDialog) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    // cpcprof on PATH, where the viewer looks when it is not beside it.
    qputenv("PATH", QFileInfo(CPCPROF_EXE).absolutePath().toLocal8Bit() + ":" + qgetenv("PATH"));
    TempDir dir("cpcprof-gui-shot");
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    gui::RecordDialog *d = w.recordDialog();
    d->show();
    gui::RecordSettings s;
    s.command = DEMO_EXE;
    s.arguments = "1";
    s.directory = QString::fromStdString(dir.path());
    s.events = "cpu-clock page-faults";
    s.rate = gui::RecordSettings::Rate::Frequency;
    s.value = "2000";
    s.output = "demo.cpcprof";
    d->setSettings(s);
    ASSERT_TRUE(wait_for([&] { return !d->availableEvents().isEmpty(); }, 20000));
    ASSERT_TRUE(d->record()) << d->status().toStdString();
    QString out = QString::fromStdString(dir.path()) + "/demo.cpcprof";
    ASSERT_TRUE(wait_for(
        [&] { return w.profile() && QString::fromStdString(w.profile()->path) == out; }, 90000))
        << d->outputText().toStdString();
    wait_for([] { return false; }, 200);
    QImage img = d->grab().toImage();
    QString path = QString(SCREENSHOT_DIR) + "/record-dialog.png";
    ASSERT_TRUE(img.save(path));
    std::printf("screenshot: %s\n", qPrintable(path));
    Ink ink = ink_of(img);
    EXPECT_GT(ink.colours, 4);
    EXPECT_GT(ink.inked, 0.01);
}

} // namespace
} // namespace cpcprof::test

namespace cpcprof::test {
namespace {

// A real recording of where the threads wait (record --off-cpu of the
// record tests' waiter): the flame graph opens on wall-clock time, each
// waiting function as wide as its share of it, and the timeline draws the
// waits over the time they took, so that a thread that waits a whole run
// is a band, not a few spikes.
namespace {

// The waiter's spinner: the share of its life off the CPU, from the
// "thread spinner TID WALL_SECONDS ..." line it prints (150 ms of CPU).
double spinner_off_share(const std::string &out) {
    std::istringstream in(out);
    std::string word, name;
    for (std::string line; std::getline(in, line);) {
        std::istringstream l(line);
        int tid = 0;
        double wall = 0;
        if (l >> word >> name >> tid >> wall && word == "thread" && name == "spinner" && wall > 0)
            return std::max(0.0, 1.0 - 0.15 / wall);
    }
    return 0;
}

} // namespace

TEST(GuiScreenshots, WallClockFlameGraphAndTimeline) {
    if (QGuiApplication::platformName() != "xcb")
        GTEST_SKIP() << "screenshots need an X display (run under xvfb-run; Debian package "
                        "xvfb); platform here: "
                     << QGuiApplication::platformName().toStdString();
    SKIP_WITHOUT_DEMO_RECORDING();
    ASSERT_TRUE(QDir().mkpath(SCREENSHOT_DIR));
    TempDir dir;
    RunResult r = cpcprof(dir, {"record", "--off-cpu", "-o", "waits.cpcprof", "--", WAITER_EXE});
    ASSERT_EQ(r.status, 0) << r.err;
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    w.openFile(QString::fromStdString(dir.file("waits.cpcprof")));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    const analysis::Query &q = *w.profile()->query;
    const int wall = q.wall_clock_event();
    ASSERT_GE(wall, 0);
    EXPECT_EQ(w.event(), wall);
    auto shot = [&](const char *name) {
        wait_for([] { return false; }, 300);
        QImage img = w.grab().toImage();
        QString path = QString(SCREENSHOT_DIR) + "/" + name + ".png";
        EXPECT_TRUE(img.save(path)) << path.toStdString();
        std::printf("screenshot: %s\n", qPrintable(path));
    };
    shot("flamegraph-wallclock");
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    for (const char *fn : {"wait_sleeping", "wait_mutex", "wait_pipe", "spin_only"}) {
        std::vector<uint32_t> ids = q.find_functions(fn);
        ASSERT_EQ(ids.size(), 1u) << fn;
        const double share = double(q.function_total()[ids[0]].values[size_t(wall)]) /
                             double(q.total().values[size_t(wall)]);
        double width = 0;
        for (const gui::FlameFrame &f : canvas->layout().frames)
            if (q.functions()[canvas->tree()->nodes()[f.node].function].name == fn)
                width += f.width;
        EXPECT_NEAR(width / double(canvas->width()), share, 0.003) << fn;
        EXPECT_GT(share, 0.05) << fn << " is a visible part of the run";
    }
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    shot("timeline-wallclock");
    // The locker waits three times about 40 ms in a run of about 0.4 s:
    // its row is filled over most of the columns up to its last wait, not
    // only where each wait began.
    gui::TimelineView *view = w.timelinePage()->view();
    EXPECT_TRUE(view->showsOffCpu());
    const gui::Timeline &t = view->timeline();
    const auto &bins = view->densities();
    const QImage img = view->grab().toImage();
    // The share of a row's drawn columns whose bar is pale at its foot
    // (time off the CPU) rather than saturated (on it).
    auto pale_share = [&](size_t row) {
        const int y = view->yOfRow(row) + 22 / 2 - 2;
        int pale = 0, drawn = 0;
        for (size_t c = 0; c < bins[row].size(); ++c)
            if (bins[row][c] > 0) {
                ++drawn;
                pale += QColor(img.pixel(view->binX(c), y)).hsvSaturation() < 80 ? 1 : 0;
            }
        return drawn ? double(pale) / drawn : 0.0;
    };
    for (size_t row = 0; row < t.rows.size(); ++row) {
        if (t.rows[row].is_thread() && t.rows[row].label.rfind("spinner", 0) == 0) {
            // Its bars are saturated where it ran: pale only as far as
            // it waited for a CPU (its 150 ms of CPU time against its
            // wall time, which busy CPUs stretch).
            const double off = spinner_off_share(r.out);
            std::printf("  %s: %.0f %% of its time off the CPU, %.0f %% of columns pale\n",
                        t.rows[row].label.c_str(), 100 * off, 100 * pale_share(row));
            EXPECT_LT(pale_share(row), off + 0.25) << "the spinner runs: saturated bars";
        }
        if (!t.rows[row].is_thread() || t.rows[row].label.rfind("locker", 0) != 0)
            continue;
        EXPECT_GT(pale_share(row), 0.8) << "the locker waits: pale bars";
        size_t filled = 0, first = bins[row].size(), last = 0;
        for (size_t c = 0; c < bins[row].size(); ++c)
            if (bins[row][c] > 0) {
                ++filled;
                first = std::min(first, c);
                last = c;
            }
        ASSERT_LT(first, bins[row].size());
        EXPECT_GT(double(filled), 0.8 * double(last - first + 1))
            << t.rows[row].label << ": " << filled << " of columns " << first << "-" << last;
        std::printf("  %s: %zu columns of %zu-%zu drawn\n", t.rows[row].label.c_str(), filled,
                    first, last);
    }
}

} // namespace
} // namespace cpcprof::test
