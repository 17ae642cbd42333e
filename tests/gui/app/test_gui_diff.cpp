// SPDX-License-Identifier: MIT
// Comparing two runs in the window, as a user does: open NEW, compare
// with BASE (File > Compare With's path), and check the colour, tooltip
// and delta of a frame known to have grown and one known to have shrunk,
// the delta columns of the trees and the Comparison page.  The pair is
// made from folded stacks (tests/support's make_folded_profile).
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/itemmodels/diff_table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/diff_page.h"
#include "gui/pages/flame_diff.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/tree_page.h"
#include "tests/support/folded_profile.h"

#include <QApplication>
#include <QColor>
#include <QFile>
#include <QHelpEvent>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QToolTip>

#include <gtest/gtest.h>

#include <cmath>

namespace cpcprof::test {
namespace {

using gui::FlameFrame;
using gui::MainWindow;

// b grows from 30 % to 60/105 of the samples on main;a;b, d shrinks from
// 40 % to 10/105; gone is only in BASE.
const std::vector<std::string> kBase = {"main;a;b 30 1000 400", "main;a;c 20 1000 1000",
                                        "main;d 40 1000 800", "main;gone 10 1000 100"};
const std::vector<std::string> kNew = {"main;a;b 60 1000 400", "main;a;c 20 1000 1000",
                                       "main;d 10 1000 800", "main;fresh 10 1000 100",
                                       "main;d;b 5 1000 100"};

class GuiDiff : public ::testing::Test {
  protected:
    void SetUp() override {
        dir = std::make_unique<TempDir>("cpcprof-gui-diff");
        std::vector<FoldedEvent> events = {{"cycles", 1000}, {"instructions", 0}};
        base = make_folded_profile(dir->path(), kBase, events, "base.cpcprof", "/opt/folded");
        now = make_folded_profile(dir->path(), kNew, events, "new.cpcprof", "/opt/folded");
        w = std::make_unique<MainWindow>();
        w->resize(1200, 800);
        w->show();
        w->tabs()->setCurrentIndex(MainWindow::FlameTab);
        w->openFile(QString::fromStdString(now));
        ASSERT_TRUE(wait_for([&] { return w->profile() != nullptr; }));
        w->compareWith(QString::fromStdString(base));
        ASSERT_TRUE(wait_for([&] { return w->flameGraph()->canvas()->diff() != nullptr; }));
    }
    // The drawn frame of the call path (root first).
    const FlameFrame *frame(const std::vector<std::string> &path) const {
        auto *c = w->flameGraph()->canvas();
        const auto &nodes = c->tree()->nodes();
        const auto &fns = c->profile()->query->functions();
        for (const FlameFrame &f : c->layout().frames) {
            std::vector<std::string> names;
            for (uint32_t v = f.node; v != 0; v = nodes[v].parent)
                names.insert(names.begin(), fns[nodes[v].function].name);
            if (names == path)
                return &f;
        }
        return nullptr;
    }

    std::unique_ptr<TempDir> dir;
    std::string base, now;
    std::unique_ptr<MainWindow> w;
};

TEST_F(GuiDiff, GrownFrameIsRedShrunkBlueWithBaseInTooltip) {
    auto *c = w->flameGraph()->canvas();
    const FlameFrame *b = frame({"main", "a", "b"});
    const FlameFrame *d = frame({"main", "d"});
    const FlameFrame *fresh = frame({"main", "fresh"});
    ASSERT_TRUE(b && d && fresh);
    // Widths stay NEW's: b has 60 of 105 samples.
    EXPECT_NEAR(b->width / c->width(), 60.0 / 105, 0.01);
    auto change = [&](const FlameFrame *f) {
        return gui::frame_change(*c->diff(), gui::DiffData::TopDown, f->node, 0);
    };
    ASSERT_TRUE(change(b) && change(d));
    EXPECT_NEAR(*change(b), (60.0 / 105 - 0.30) * 100, 1e-9);
    EXPECT_NEAR(*change(d), (10.0 / 105 - 0.40) * 100, 1e-9);
    // d's change (-30.5 pp) is the largest in the picture: full blue; b
    // (+27.1 pp) red in proportion, as cpcprof diff's page colours them,
    // both pale enough for black text.
    EXPECT_EQ(c->fillColour(d->node), QColor(120, 120, 255));
    double t = *change(b) / -*change(d);
    QColor red = c->fillColour(b->node);
    EXPECT_EQ(red, QColor(int(std::lround(225 + 30 * t)), int(std::lround(215 - 95 * t)),
                          int(std::lround(215 - 95 * t))));
    EXPECT_GT(red.red(), 245);
    EXPECT_LT(red.green(), 140);
    // fresh (+9.5 pp, from 0 of 100 samples to 10 of 105: p = 0.002) is a
    // paler red than b.
    QColor pale = c->fillColour(fresh->node);
    EXPECT_GT(pale.red(), pale.green());
    EXPECT_GT(pale.green(), red.green());
    EXPECT_EQ(pale.green(), pale.blue());
    // main;a;c went from 20 of 100 to 20 of 105 samples (-0.95 pp): noise
    // at 99 %, painted neutral grey, and its tooltip says so.
    const FlameFrame *same = frame({"main", "a", "c"});
    ASSERT_NE(same, nullptr);
    ASSERT_TRUE(change(same));
    EXPECT_NEAR(*change(same), (20.0 / 105 - 0.20) * 100, 1e-9);
    EXPECT_EQ(c->fillColour(same->node), QColor(220, 220, 220));
    {
        QPoint at = c->frameRect(*same).center().toPoint();
        QHelpEvent help(QEvent::ToolTip, at, c->mapToGlobal(at));
        QApplication::sendEvent(c, &help);
        EXPECT_TRUE(QToolTip::text().contains("-0.95 pp (noise)"))
            << QToolTip::text().toStdString();
    }
    // The legend above the graph says what the colours mean.
    QLabel *legend = w->flameGraph()->legend();
    EXPECT_TRUE(legend->isVisible());
    EXPECT_TRUE(legend->text().contains("within noise")) << legend->text().toStdString();
    EXPECT_TRUE(legend->text().contains("99 % confidence")) << legend->text().toStdString();

    // The tooltip gives BASE's figures: main;a;b had 30 % of the samples.
    QPoint at = c->frameRect(*b).center().toPoint();
    QHelpEvent help(QEvent::ToolTip, at, c->mapToGlobal(at));
    QApplication::sendEvent(c, &help);
    QString tip = QToolTip::text();
    EXPECT_TRUE(tip.contains("against the base")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("(30.00 %)")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("+27.14 pp")) << tip.toStdString();
}

TEST_F(GuiDiff, TreesHaveDeltaColumnsAndTheComparisonListsBaseOnlyFunctions) {
    auto *page = qobject_cast<gui::TreePage *>(w->tabs()->widget(MainWindow::TopDownTab));
    ASSERT_NE(page, nullptr);
    gui::CostTreeModel *m = page->model();
    int col = m->deltaColumn(0, true, true);
    ASSERT_GE(col, 0);
    EXPECT_EQ(m->headerData(col, Qt::Horizontal).toString(),
              QString::fromUtf8("\u0394self:cycles pp"));
    const auto &t = m->tree();
    uint32_t main = 0;
    for (size_t i = 0; i < t.child_count(0); ++i)
        if (t.name(t.child(0, i)) == "main")
            main = t.child(0, i);
    ASSERT_NE(main, 0u);
    uint32_t a = 0, b = 0;
    for (size_t i = 0; i < t.child_count(main); ++i)
        if (t.name(t.child(main, i)) == "a")
            a = t.child(main, i);
    for (size_t i = 0; a && i < t.child_count(a); ++i)
        if (t.name(t.child(a, i)) == "b")
            b = t.child(a, i);
    ASSERT_NE(b, 0u);
    QModelIndex cell = m->indexOfNode(b).siblingAtColumn(col);
    EXPECT_EQ(cell.data().toString(), "+27.14");
    EXPECT_EQ(cell.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(200, 0, 0));
    EXPECT_TRUE(cell.data(Qt::ToolTipRole).toString().contains("beyond noise at 99 %"))
        << cell.data(Qt::ToolTipRole).toString().toStdString();
    // main;a;c: -0.95 pp, within noise: grey, not blue.
    uint32_t cc = 0;
    for (size_t i = 0; a && i < t.child_count(a); ++i)
        if (t.name(t.child(a, i)) == "c")
            cc = t.child(a, i);
    ASSERT_NE(cc, 0u);
    QModelIndex noise = m->indexOfNode(cc).siblingAtColumn(col);
    EXPECT_EQ(noise.data().toString(), "-0.95");
    EXPECT_EQ(noise.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(120, 120, 120));
    EXPECT_TRUE(noise.data(Qt::ToolTipRole).toString().contains("within noise at 99 %"))
        << noise.data(Qt::ToolTipRole).toString().toStdString();

    int tab = -1;
    for (int i = 0; i < w->tabs()->count(); ++i)
        if (w->tabs()->tabText(i) == "Comparison")
            tab = i;
    ASSERT_GE(tab, 0);
    w->tabs()->setCurrentIndex(tab);
    gui::DiffPage *diff = w->diffPage();
    diff->setShow(gui::DiffPage::OnlyInBase);
    ASSERT_EQ(diff->proxy()->rowCount(), 1);
    EXPECT_EQ(diff->proxy()->index(0, 0).data().toString(), "gone");
    EXPECT_TRUE(diff->description().contains("1 only in base"))
        << diff->description().toStdString();

    // Stop comparing: the colours and columns go.
    w->diffController()->clearBase();
    ASSERT_TRUE(wait_for([&] { return w->flameGraph()->canvas()->diff() == nullptr; }));
    EXPECT_LT(m->deltaColumn(0, true, true), 0);
    for (int i = 0; i < w->tabs()->count(); ++i)
        EXPECT_NE(w->tabs()->tabText(i), "Comparison");
}

TEST_F(GuiDiff, ABaseWithoutCommonEventsSaysSo) {
    std::string other = make_folded_profile(dir->path(), {"main 5"}, {{"task-clock", 1000}},
                                            "other.cpcprof", "/opt/folded");
    w->compareWith(QString::fromStdString(other));
    QMessageBox *box = nullptr;
    ASSERT_TRUE(
        wait_for([&] { return (box = w->findChild<QMessageBox *>("diffError")) != nullptr; }));
    EXPECT_TRUE(box->informativeText().contains("no event in common"))
        << box->informativeText().toStdString();
    EXPECT_EQ(w->flameGraph()->canvas()->diff(), nullptr);
}

TEST_F(GuiDiff, ABaseThatIsNoProfileIsRefusedWithTheReason) {
    std::string junk = dir->path() + "/junk.cpcprof";
    {
        QFile f(QString::fromStdString(junk));
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("not a profile\n");
    }
    w->diffController()->clearBase();
    w->compareWith(QString::fromStdString(junk));
    QMessageBox *box = nullptr;
    ASSERT_TRUE(
        wait_for([&] { return (box = w->findChild<QMessageBox *>("diffError")) != nullptr; }));
    EXPECT_TRUE(box->informativeText().startsWith(QString::fromStdString(junk) + ": "))
        << box->informativeText().toStdString();
    EXPECT_EQ(w->flameGraph()->canvas()->diff(), nullptr);
    EXPECT_TRUE(w->diffController()->basePath().isEmpty());
    EXPECT_TRUE(w->profile() != nullptr); // the profile shown stays
}

// The command line: `cpcprof-gui --base BASE NEW` opens NEW compared with
// BASE (in bench mode it says when the comparison was shown, and quits);
// --base without a FILE is refused with the reason.
TEST_F(GuiDiff, CommandLineBase) {
#ifndef GUI_EXE
    GTEST_SKIP() << "cpcprof-gui is not built";
#else
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("CPCPROF_GUI_BENCH", "1");
    p.setProcessEnvironment(env);
    p.start(GUI_EXE, {"--base", QString::fromStdString(base), QString::fromStdString(now)});
    ASSERT_TRUE(p.waitForFinished(60000));
    EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
    QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
    QJsonObject out = QJsonDocument::fromJson(lines.last()).object();
    EXPECT_TRUE(out.contains("diff_ms")) << lines.last().toStdString();
    EXPECT_GE(out.value("compare_ms").toDouble(-1), 0.0);

    p.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    p.start(GUI_EXE, {"--base", QString::fromStdString(base)});
    ASSERT_TRUE(p.waitForFinished(60000));
    EXPECT_EQ(p.exitCode(), 2);
    EXPECT_TRUE(p.readAllStandardError().contains("--base needs a FILE"));
#endif
}

} // namespace
} // namespace cpcprof::test
