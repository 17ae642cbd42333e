// SPDX-License-Identifier: MIT
// On demand, not in ctest: how long the viewer's models and pages take on
// a big profile (tests/bench/bench_storage makes a 1 M-sample one).
//   bench_gui_views FILE
// Prints wall and CPU ms of: loading (load_profile), each page's
// setProfile, an event switch, a filter, a selectFunction; offscreen.
#include "gui/model/profile_data.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/tree_page.h"
#include "profiler/analysis/hotspots.h"

#include "gui/pages/filter_bar.h"

#include <QApplication>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTreeView>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>

namespace {

double cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

void timed(const char *what, const std::function<void()> &f) {
    auto w0 = std::chrono::steady_clock::now();
    double c0 = cpu_ms();
    f();
    QApplication::processEvents(); // what the views do with it
    double c1 = cpu_ms();
    double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
    std::printf("%-34s %9.1f ms wall %9.1f ms cpu\n", what, wall, c1 - c0);
}

} // namespace

int main(int argc, char **argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    using namespace cpcprof::gui;
    ProfilePtr p;
    timed("load_profile", [&] {
        std::atomic<bool> cancel{false};
        std::string error;
        p = load_profile(argv[1], cancel, &error);
        if (!p) {
            std::fprintf(stderr, "%s\n", error.c_str());
            std::exit(1);
        }
    });
    const auto &q = *p->query;
    std::printf("samples %llu, functions %zu, frame nodes %zu, top-down nodes %zu, "
                "bottom-up nodes %zu, events %zu\n",
                (unsigned long long)q.samples_kept(), q.functions().size(), q.frame_nodes().size(),
                p->top_down->nodes().size(), p->bottom_up ? p->bottom_up->nodes().size() : 0,
                q.events().size());
    timed("hotspot_rows (model only)",
          [&] { (void)cpcprof::analysis::hotspot_rows(q, cpcprof::analysis::GroupBy::function); });
    TreePage td(TreePage::Kind::TopDown), bu(TreePage::Kind::BottomUp);
    HotspotsPage hs;
    CallerCalleePage cc;
    for (QWidget *w : std::initializer_list<QWidget *>{&td, &bu, &hs, &cc}) {
        w->resize(1200, 800);
        w->show();
    }
    timed("top-down setProfile", [&] { td.setProfile(p); });
    timed("bottom-up setProfile", [&] { bu.setProfile(p); });
    timed("hotspots setProfile", [&] { hs.setProfile(p); });
    timed("caller/callee setProfile", [&] { cc.setProfile(p); });
    int other = q.events().size() > 1 ? 1 : 0;
    for (int e : {other, 0}) {
        std::string what = "setEvent(" + std::to_string(e) + ") all four pages";
        timed(what.c_str(), [&] {
            td.setEvent(e);
            bu.setEvent(e);
            hs.setEvent(e);
            cc.setEvent(e);
        });
    }
    timed("hotspots sort by name", [&] { hs.view()->sortByColumn(0, Qt::AscendingOrder); });
    timed("hotspots sort by location", [&] { hs.view()->sortByColumn(2, Qt::AscendingOrder); });
    timed("hotspots sort by self", [&] { hs.setEvent(0); });
    // The heaviest function by total, as a user would pick it.
    uint32_t hot = 0;
    for (uint32_t f = 0; f < q.functions().size(); ++f)
        if (q.function_total()[f].samples > q.function_total()[hot].samples &&
            f != q.truncated_function())
            hot = f;
    timed("top-down selectFunction", [&] { td.selectFunction(hot); });
    timed("caller/callee selectFunction", [&] {
        QSignalSpy shown(&cc, &CallerCalleePage::treesShown);
        cc.selectFunction(hot);
        shown.wait(60000); // the trees come from another thread
    });
    std::string pattern = q.functions()[hot].name.substr(0, 6);
    timed("top-down filter (substring)",
          [&] { td.filterBar()->edit()->setText(QString::fromStdString(pattern)); });
    timed("hotspots filter (substring)",
          [&] { hs.filterBar()->edit()->setText(QString::fromStdString(pattern)); });
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("peak RSS %.0f MiB\n", double(ru.ru_maxrss) / 1024);
    return 0;
}
