// SPDX-License-Identifier: MIT
#include "gui/app/bench_mode.h"

#include "gui/app/main_window.h"
#include "gui/itemmodels/source_models.h"
#include "gui/model/timeline.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/source_page.h"

#include <QApplication>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace cpcprof::gui {

namespace {

double ms_of(QElapsedTimer &t) {
    return double(t.nsecsElapsed()) / 1e6;
}

// Opening the source of the function with the most self cost: until the
// source half has been painted, and until the disassembly (objdump) is in.
void time_source(MainWindow *w, QJsonObject &out) {
    const analysis::Query &q = *w->profile()->query;
    uint32_t hot = 0;
    for (uint32_t f = 0; f < q.functions().size(); ++f)
        if (q.function_self()[f].values.at(0) > q.function_self()[hot].values.at(0))
            hot = f;
    SourcePage *page = w->sourcePage();
    QEventLoop loop;
    bool source = false, code = false;
    QElapsedTimer t;
    QObject::connect(page, &SourcePage::sourceShown, &loop, [&] {
        source = true;
        page->repaint();
        out["source_ms"] = ms_of(t);
        if (code)
            loop.quit();
    });
    QObject::connect(page, &SourcePage::disassemblyShown, &loop, [&] {
        code = true;
        out["disassembly_ms"] = ms_of(t);
        if (source)
            loop.quit();
    });
    t.start();
    w->showSource(hot);
    if (!source || !code)
        loop.exec();
    out["source_function"] = QString::fromStdString(q.functions()[hot].name);
    out["source_lines"] = qint64(page->sourceModel()->rowCount());
}

void run_interactions(MainWindow *w, QJsonObject out) {
    FlameGraph *flame = w->flameGraph();
    FlameCanvas *canvas = flame->canvas();
    QElapsedTimer t;
    int events = int(w->profile()->query->events().size());

    t.start();
    w->setEvent(events > 1 ? 1 : 0); // one event: the same re-layout and paint
    canvas->repaint();
    out["event_switch_ms"] = ms_of(t);
    w->setEvent(0);

    // Zoom into the widest frame below the roots' row.
    const FlameFrame *widest = nullptr;
    for (const FlameFrame &f : canvas->layout().frames)
        if (f.row == 1 && (!widest || f.width > widest->width))
            widest = &f;
    if (widest) {
        uint32_t node = widest->node;
        t.start();
        canvas->zoomTo(node);
        canvas->repaint();
        out["zoom_ms"] = ms_of(t);
        t.start();
        canvas->zoomOut();
        canvas->repaint();
        out["zoom_out_ms"] = ms_of(t);
    }

    QString pattern = qEnvironmentVariable("CPCPROF_GUI_BENCH_SEARCH", "a");
    QEventLoop loop;
    bool found = false; // the search may be done before setText returns
    QObject::connect(flame, &FlameGraph::searchFinished, &loop, [&] {
        found = true;
        loop.quit();
    });
    t.start();
    flame->findChild<QLineEdit *>("flameSearch")->setText(pattern);
    if (!found)
        loop.exec();
    canvas->repaint();
    out["search_ms"] = ms_of(t);
    out["search_pattern"] = pattern;
    out["search_share"] = flame->searchShare().value_or(-1);
    out["frames_drawn"] = qint64(canvas->layout().frames.size());

    // A time-range filter over the middle half of the run (as dragged on
    // the timeline), until the filtered flame graph has been painted.
    flame->findChild<QLineEdit *>("flameSearch")->clear();
    w->tabs()->setCurrentIndex(MainWindow::FlameTab);
    Timeline timeline = make_timeline(*w->loadedProfile()->query);
    FilterStep step;
    step.time = TimeRange{timeline.duration_ns / 4, timeline.duration_ns * 3 / 4};
    bool applied = false;
    QObject::connect(w, &MainWindow::filtersApplied, &loop, [&] {
        applied = true;
        loop.quit();
    });
    t.start();
    w->pushFilter(step);
    while (!applied)
        loop.exec();
    canvas->repaint();
    out["filter_ms"] = ms_of(t);
    out["filter_samples"] = qint64(w->profile()->query->samples_kept());
    t.start();
    w->backToFilter(0);
    canvas->repaint();
    out["filter_back_ms"] = ms_of(t);

    time_source(w, out);
    std::printf("%s\n", QJsonDocument(out).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    QApplication::exit(0);
}

} // namespace

void start_bench_mode(MainWindow *w, const QElapsedTimer &clock) {
    auto load_ms = std::make_shared<qint64>(-1);
    auto done = std::make_shared<bool>(false);
    w->tabs()->setCurrentIndex(MainWindow::FlameTab);
    QObject::connect(w->loader(), &ProfileLoader::loaded, w,
                     [load_ms](const ProfilePtr &, qint64 ms) { *load_ms = ms; });
    QObject::connect(w, &MainWindow::loadFailed, w, [](const QString &error) {
        std::fprintf(stderr, "cpcprof-gui: %s\n", qPrintable(error));
        QApplication::exit(1);
    });
    // The GUI thread's longest time without handling a timer while the
    // file loads and the first flame graph is drawn: how long the window
    // would not answer a resize or a menu.
    struct Stall {
        QElapsedTimer since_tick;
        double max_ms = 0;
    };
    auto stall = std::make_shared<Stall>();
    auto *ticker = new QTimer(w);
    ticker->setInterval(5);
    stall->since_tick.start();
    QObject::connect(ticker, &QTimer::timeout, w, [stall] {
        stall->max_ms = std::max(stall->max_ms, double(stall->since_tick.nsecsElapsed()) / 1e6);
        stall->since_tick.start();
    });
    ticker->start();
    // With --base: the comparison shown (flame graph coloured, columns and
    // the Comparison page filled) counts too, before the interactions.
    auto compared_ms = std::make_shared<double>(-1);
    auto painted = std::make_shared<QJsonObject>();
    auto go_on = [w, painted, compared_ms] {
        if (painted->isEmpty())
            return; // not painted yet
        bool comparing = !w->diffController()->basePath().isEmpty() || w->diffController()->diff();
        if (comparing && *compared_ms < 0)
            return; // not compared yet
        QJsonObject out = *painted;
        if (*compared_ms >= 0) {
            out["diff_ms"] = *compared_ms;
            out["base_load_ms"] = double(w->diffController()->baseLoadMs());
            out["compare_ms"] = double(w->diffController()->compareMs());
        }
        // After this paint has returned.
        QTimer::singleShot(0, w, [w, out] { run_interactions(w, out); });
    };
    QObject::connect(w, &MainWindow::diffShown, w,
                     [w, compared_ms, &clock, go_on](const DiffPtr &d) {
                         if (!d || *compared_ms >= 0)
                             return;
                         w->flameGraph()->canvas()->repaint();
                         *compared_ms = double(clock.nsecsElapsed()) / 1e6;
                         go_on();
                     });
    QObject::connect(w->flameGraph()->canvas(), &FlameCanvas::painted, w,
                     [w, load_ms, done, &clock, stall, ticker, painted, go_on] {
                         if (*done)
                             return;
                         *done = true;
                         ticker->stop();
                         QJsonObject out;
                         // The stall that ends with this paint counts too.
                         out["max_stall_ms"] = std::max(
                             stall->max_ms, double(stall->since_tick.nsecsElapsed()) / 1e6);
                         out["load_ms"] = double(*load_ms);
                         out["first_paint_ms"] = double(clock.nsecsElapsed()) / 1e6;
                         out["samples"] = qint64(w->profile()->query->samples_kept());
                         *painted = out;
                         go_on();
                     });
}

} // namespace cpcprof::gui
