// SPDX-License-Identifier: MIT
// The Timeline page and the filter stack driven as a user does, on a
// recording of cpcprof-demo (two threads): drag across the timeline,
// Filter in on selection, and every view shows the samples in that range
// -- the numbers `cpcprof report --time` gives; click the worker's row
// and Exclude thread; Back undoes each step; click a processor's row and
// Filter in: the samples `cpcprof report --cpu` gives.
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/pages/filter_stack_bar.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/summary_page.h"
#include "gui/pages/timeline_page.h"

#include <QApplication>
#include <QHelpEvent>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cinttypes>
#include <cstdio>
#include <unistd.h>

namespace cpcprof::test {
namespace {

using gui::MainWindow;
using nlohmann::json;

json report_json(const std::string &file, const std::vector<std::string> &args) {
    TempDir dir;
    std::vector<std::string> argv = {"report", file, "--format", "json", "--top", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = cpcprof(dir, argv);
    EXPECT_EQ(r.status, 0) << r.err;
    return r.status == 0 ? json::parse(r.out) : json::object();
}

std::string seconds(int64_t ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%09" PRId64, ns / 1'000'000'000,
                  ns % 1'000'000'000);
    return buf;
}

// What the flame graph's tree holds in all: samples and each event's sum.
cpcprof::analysis::Cost flame_total(MainWindow &w) {
    return w.flameGraph()->canvas()->tree()->nodes()[0].total;
}

cpcprof::analysis::Cost report_total(const json &r) {
    cpcprof::analysis::Cost c;
    if (!r.contains("run"))
        return c;
    c.samples = r.at("run").at("samples").at("kept").get<uint64_t>();
    for (const json &e : r.at("events"))
        c.values.push_back(e.at("total").get<uint64_t>());
    return c;
}

void expect_same(const cpcprof::analysis::Cost &mine, const cpcprof::analysis::Cost &theirs,
                 const char *what) {
    EXPECT_EQ(mine.samples, theirs.samples) << what;
    EXPECT_EQ(mine.values, theirs.values) << what;
}

bool wait_filters(MainWindow &w, size_t depth) {
    return wait_for([&] { return !w.filtering() && w.filters().size() == depth; });
}

TEST(GuiTimeline, DragFilterExcludeAndUndo) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() && !w.loader()->busy(); }));
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    gui::TimelinePage *page = w.timelinePage();
    gui::TimelineView *view = page->view();
    ASSERT_TRUE(wait_for([&] { return view->isVisible() && view->plotWidth() > 400; }));
    const gui::Timeline &t = view->timeline();
    ASSERT_GE(t.rows.size(), 3u) << "a process and its two threads";
    EXPECT_FALSE(w.filterBar()->isVisible());
    const cpcprof::analysis::Cost all = flame_total(w);
    expect_same(all, report_total(report_json(file, {})), "loaded");

    // A thread row's tooltip: its name and samples.
    const int y = view->yOfRow(1);
    QHelpEvent tip(QEvent::ToolTip, QPoint(view->plotLeft() + 5, y),
                   view->mapToGlobal(QPoint(view->plotLeft() + 5, y)));
    QApplication::sendEvent(view, &tip);
    EXPECT_TRUE(QToolTip::text().startsWith(QString::fromStdString(t.rows[1].label)))
        << QToolTip::text().toStdString();
    EXPECT_TRUE(QToolTip::text().contains(QLocale().toString(qulonglong(t.rows[1].cost.samples)) +
                                          " samples"))
        << QToolTip::text().toStdString();
    QToolTip::hideText();

    // Drag across the second quarter to the third, on the first thread's row.
    const int64_t quarter = t.duration_ns / 4, three_quarters = t.duration_ns * 3 / 4;
    const int x0 = view->xOfTime(quarter), x1 = view->xOfTime(three_quarters);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(x0, y));
    QTest::mouseMove(view, QPoint(x0 + 10, y));
    QTest::mouseMove(view, QPoint(x1, y));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(x1, y));
    auto range = view->selectedRange();
    ASSERT_TRUE(range);
    // What the pixels stand for: within a column of where the drag was.
    const int64_t column = t.duration_ns / view->plotWidth() + 1;
    EXPECT_NEAR(double(range->from_ns), double(quarter), double(column));
    EXPECT_NEAR(double(range->to_ns), double(three_quarters), double(column));
    ASSERT_TRUE(page->filterInButton()->isEnabled());
    QTest::mouseClick(page->filterInButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_filters(w, 1));

    // Every view now shows the samples in the range: report --time's.
    const cpcprof::analysis::Cost in_range = flame_total(w);
    const gui::ProfilePtr range_profile = w.profile();
    EXPECT_GT(in_range.samples, 0u);
    EXPECT_LT(in_range.samples, all.samples);
    const std::string time = seconds(range->from_ns) + "," + seconds(range->to_ns);
    json r = report_json(file, {"--time", time});
    expect_same(in_range, report_total(r), "flame graph after the time filter");
    EXPECT_TRUE(w.summaryPage()->text().contains(QString("%1 kept").arg(in_range.samples)))
        << w.summaryPage()->text().toStdString();
    ASSERT_TRUE(w.profile()->hotspots);
    EXPECT_EQ(w.profile()->hotspots->size(), r.at("rows").size());
    EXPECT_TRUE(w.filterBar()->isVisible());
    EXPECT_TRUE(w.filterBar()->text().startsWith("All samples > "))
        << w.filterBar()->text().toStdString();
    EXPECT_FALSE(view->selectedRange()) << "the selection was used up";

    // Click the worker's row (the thread with fewer samples) and exclude it.
    size_t worker = 0;
    for (size_t i = 0; i < t.rows.size(); ++i)
        if (t.rows[i].is_thread() &&
            (worker == 0 || t.rows[i].cost.samples < t.rows[worker].cost.samples))
            worker = i;
    ASSERT_NE(worker, 0u);
    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(40, view->yOfRow(worker)));
    ASSERT_EQ(view->selectedThreads().size(), 1u);
    EXPECT_EQ(view->selectedThreads()[0].tid, t.rows[worker].id.tid);
    QTest::mouseClick(page->excludeButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_filters(w, 2));
    const cpcprof::analysis::Cost without = flame_total(w);
    cpcprof::analysis::Cost expected = report_total(r);
    cpcprof::analysis::Cost its = report_total(
        report_json(file, {"--time", time, "--tid", std::to_string(t.rows[worker].id.tid)}));
    ASSERT_EQ(expected.values.size(), its.values.size());
    expected.samples -= its.samples;
    for (size_t e = 0; e < expected.values.size(); ++e)
        expected.values[e] -= its.values[e];
    expect_same(without, expected, "after excluding the worker");
    EXPECT_LT(without.samples, in_range.samples);
    EXPECT_TRUE(
        w.filterBar()->text().endsWith(QString("without thread %1").arg(t.rows[worker].id.tid)))
        << w.filterBar()->text().toStdString();

    // Back, step by step: the range's profile was kept, so it is back at once.
    QTest::mouseClick(w.filterBar()->backButton(), Qt::LeftButton);
    EXPECT_FALSE(w.filtering());
    EXPECT_EQ(w.profile(), range_profile);
    ASSERT_TRUE(wait_filters(w, 1));
    expect_same(flame_total(w), in_range, "one step back");
    QTest::mouseClick(w.filterBar()->backButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_filters(w, 0));
    expect_same(flame_total(w), all, "all steps back");
    EXPECT_EQ(w.profile(), w.loadedProfile());
    EXPECT_FALSE(w.filterBar()->isVisible());
}

// Zoom to selection: the timeline shows only the range dragged, across
// its whole width -- the densities are those of the samples `cpcprof
// report --time` keeps for that range, a drag inside it is finer by the
// zoom -- while the other pages keep every sample; Zoom out goes back.
TEST(GuiTimeline, ZoomToSelectionShowsOnlyThatTime) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(900, 700);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    gui::TimelinePage *page = w.timelinePage();
    gui::TimelineView *view = page->view();
    ASSERT_TRUE(wait_for([&] { return view->isVisible() && view->plotWidth() > 400; }));
    const gui::Timeline &t = view->timeline();
    ASSERT_TRUE(t.rows.at(0).process);
    const cpcprof::analysis::Cost all = flame_total(w);
    EXPECT_FALSE(page->zoomInButton()->isEnabled()) << "nothing selected";
    EXPECT_FALSE(page->zoomOutButton()->isEnabled()) << "not zoomed";

    auto drag = [&](int64_t from, int64_t to) {
        const int y = view->yOfRow(1);
        const int x0 = view->xOfTime(from), x1 = view->xOfTime(to);
        QTest::mousePress(view, Qt::LeftButton, {}, QPoint(x0, y));
        QTest::mouseMove(view, QPoint(x0 + 10, y));
        QTest::mouseMove(view, QPoint(x1, y));
        QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(x1, y));
    };
    drag(t.duration_ns / 4, t.duration_ns / 2);
    auto range = view->selectedRange();
    ASSERT_TRUE(range);
    ASSERT_TRUE(page->zoomInButton()->isEnabled());
    QTest::mouseClick(page->zoomInButton(), Qt::LeftButton);
    EXPECT_EQ(view->window(), *range);
    EXPECT_TRUE(view->zoomed());
    EXPECT_FALSE(view->selectedRange()) << "the selection became the view";
    EXPECT_EQ(view->xOfTime(range->from_ns), view->plotLeft());
    EXPECT_EQ(view->xOfTime(range->to_ns), view->plotLeft() + view->plotWidth());
    EXPECT_TRUE(page->zoomOutButton()->isEnabled());
    QLabel *label = page->findChild<QLabel *>("timelineSelection");
    ASSERT_TRUE(label);
    EXPECT_TRUE(label->text().startsWith("Showing ")) << label->text().toStdString();
    // The longer line wraps: the window keeps its size.
    EXPECT_LE(w.minimumSizeHint().width(), 900);
    EXPECT_EQ(w.width(), 900);

    // The process row's densities: the range's samples, as report keeps them.
    const json r =
        report_json(file, {"--time", seconds(range->from_ns) + "," + seconds(range->to_ns)});
    const cpcprof::analysis::Cost in_range = report_total(r);
    ASSERT_FALSE(in_range.values.empty());
    EXPECT_GT(in_range.samples, 0u);
    EXPECT_LT(in_range.samples, all.samples);
    uint64_t drawn = 0;
    for (uint64_t v : view->densities()[0])
        drawn += v;
    EXPECT_EQ(drawn, in_range.values[0]) << "the zoomed timeline holds the range's samples";

    // Only the timeline zoomed: no filter, every page keeps every sample.
    EXPECT_TRUE(w.filters().empty());
    expect_same(flame_total(w), all, "the flame graph beside a zoomed timeline");

    // A drag in the zoom is as fine as the zoom: within a column of it.
    const int64_t span = range->to_ns - range->from_ns;
    const int64_t a = range->from_ns + span / 3, b = range->from_ns + span * 2 / 3;
    drag(a, b);
    auto inner = view->selectedRange();
    ASSERT_TRUE(inner);
    const int64_t column = span / view->plotWidth() + 1;
    EXPECT_NEAR(double(inner->from_ns), double(a), double(column));
    EXPECT_NEAR(double(inner->to_ns), double(b), double(column));

    // Zoom out: the whole run again, and nothing more to zoom out of.
    QTest::mouseClick(page->zoomOutButton(), Qt::LeftButton);
    EXPECT_EQ(view->window(), t.whole());
    EXPECT_FALSE(view->zoomed());
    EXPECT_FALSE(page->zoomOutButton()->isEnabled());
    drawn = 0;
    for (uint64_t v : view->densities()[0])
        drawn += v;
    EXPECT_EQ(drawn, all.values[0]) << "the whole run's samples again";
}

TEST(GuiTimeline, OnlyThisProcessIsReportPid) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() && !w.loader()->busy(); }));
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    gui::TimelineView *view = w.timelinePage()->view();
    ASSERT_TRUE(wait_for([&] { return view->isVisible(); }));
    const gui::TimelineRow &thread = view->timeline().rows.at(1);
    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(40, view->yOfRow(1)));
    QTest::mouseClick(w.timelinePage()->onlyProcessButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_filters(w, 1));
    EXPECT_EQ(w.filters()[0].pid, thread.id.pid);
    expect_same(flame_total(w),
                report_total(report_json(file, {"--pid", std::to_string(thread.id.pid)})),
                "only the process");
}

// Every sample of a recording says the processor it was taken on: the
// processors' rows hold all of them between them, and clicking one's row
// and Filter in shows what `cpcprof report --cpu N` gives.
TEST(GuiTimeline, AProcessorsRowFiltersInTheSamplesTakenOnIt) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() && !w.loader()->busy(); }));
    w.tabs()->setCurrentIndex(MainWindow::TimelineTab);
    gui::TimelinePage *page = w.timelinePage();
    gui::TimelineView *view = page->view();
    ASSERT_TRUE(wait_for([&] { return view->isVisible() && view->plotWidth() > 400; }));
    const gui::Timeline &t = view->timeline();
    const cpcprof::analysis::Cost all = flame_total(w);
    uint64_t on_cpus = 0;
    size_t busiest = 0;
    for (size_t i = 0; i < t.rows.size(); ++i)
        if (t.rows[i].cpu >= 0) {
            on_cpus += t.rows[i].cost.samples;
            if (busiest == 0 || t.rows[i].cost.samples > t.rows[busiest].cost.samples)
                busiest = i;
        }
    ASSERT_NE(busiest, 0u) << "no processor rows";
    EXPECT_EQ(on_cpus, all.samples) << "every sample says its processor";
    EXPECT_LT(t.rows[busiest].cpu, sysconf(_SC_NPROCESSORS_CONF));

    QTest::mouseClick(view, Qt::LeftButton, {}, QPoint(40, view->yOfRow(busiest)));
    ASSERT_EQ(view->selectedCpus(), std::vector<int>{t.rows[busiest].cpu});
    EXPECT_TRUE(view->selectedThreads().empty());
    EXPECT_TRUE(page->findChild<QLabel *>("timelineSelection")
                    ->text()
                    .endsWith(QString("only CPU %1").arg(t.rows[busiest].cpu)));
    QTest::mouseClick(page->filterInButton(), Qt::LeftButton);
    ASSERT_TRUE(wait_filters(w, 1));
    json r = report_json(file, {"--cpu", std::to_string(t.rows[busiest].cpu)});
    expect_same(flame_total(w), report_total(r), "flame graph after the processor filter");
    EXPECT_EQ(flame_total(w).samples, t.rows[busiest].cost.samples);
    EXPECT_EQ(r.at("run").at("filter").at("cpu").get<int>(), t.rows[busiest].cpu);
    EXPECT_TRUE(w.filterBar()->text().endsWith(QString("only CPU %1").arg(t.rows[busiest].cpu)))
        << w.filterBar()->text().toStdString();
}

} // namespace
} // namespace cpcprof::test
