// SPDX-License-Identifier: MIT
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/app/profile_loader.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QMenu>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <gtest/gtest.h>

#include <memory>
#include <sstream>

namespace cpcprof::test {

bool wait_for(const std::function<bool()> &cond, int ms) {
    QElapsedTimer t;
    t.start();
    while (!cond()) {
        if (t.elapsed() > ms)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    return true;
}

bool open_and_wait(gui::MainWindow &w, const std::string &path) {
    w.openFile(QString::fromStdString(path));
    return wait_for(
        [&] { return w.profile() && w.profile()->path == path && !w.loader()->busy(); });
}

QStringList pick_from_context_menu(QWidget *target, QPoint at, const QString &item) {
    QStringList offered;
    // The menu runs its own event loop: pick the item from inside it.  The
    // timer dies with this call when no menu opened.
    QTimer timer;
    timer.setSingleShot(true);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
        if (!menu)
            return;
        QAction *pick = nullptr;
        for (QAction *a : menu->actions()) {
            offered << a->text();
            if (a->text() == item)
                pick = a;
        }
        if (pick)
            menu->setActiveAction(pick);
        QTest::keyClick(menu, pick ? Qt::Key_Return : Qt::Key_Escape);
    });
    timer.start(100);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, target->mapToGlobal(at));
    QApplication::sendEvent(target, &event);
    return offered;
}

const std::string &two_event_profile() {
    static std::unique_ptr<TempDir> dir;
    static std::string path;
    if (!dir) {
        dir = std::make_unique<TempDir>();
        std::string out = dir->file("two.cpcprof");
        RunResult r = run_cpcprof(*dir,
                                  {"record", "-q", "-e", "cpu-clock", "-e", "page-faults", "-o",
                                   out, "--", DEMO_EXE, "1"},
                                  60);
        EXPECT_EQ(r.status, 0) << r.err;
        if (r.status == 0)
            path = out;
    }
    EXPECT_FALSE(path.empty()) << "recording cpcprof-demo with two events failed";
    return path;
}

std::vector<std::string> csv_fields(const std::string &line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                out.back() += line[++i];
            else if (c == '"')
                quoted = false;
            else
                out.back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

std::vector<std::map<std::string, std::string>> report_rows(const std::string &file,
                                                            const std::vector<std::string> &args) {
    TempDir dir;
    std::vector<std::string> argv = {"report", file, "--format", "csv", "--top", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = cpcprof(dir, argv);
    EXPECT_EQ(r.status, 0) << r.err;
    std::istringstream in(r.out);
    std::string line;
    std::vector<std::string> head;
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line)) {
        std::vector<std::string> f = csv_fields(line);
        if (head.empty()) {
            head = f;
            continue;
        }
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < head.size() && i < f.size(); ++i)
            row[head[i]] = f[i];
        rows.push_back(std::move(row));
    }
    return rows;
}

std::map<std::string, std::string> report_row(const std::string &file, const std::string &name) {
    for (auto &row : report_rows(file))
        if (row["function"] == name)
            return row;
    ADD_FAILURE() << "cpcprof report " << file << " has no row of " << name;
    return {};
}

std::string report_header(const std::string &file, const std::string &key) {
    TempDir dir;
    RunResult r = cpcprof(dir, {"report", file});
    EXPECT_EQ(r.status, 0) << r.err;
    for (const std::string &v : lines_with(r.out, "# " + key + ": "))
        return v;
    ADD_FAILURE() << "cpcprof report " << file << " has no '# " << key << ":' line";
    return {};
}

} // namespace cpcprof::test
