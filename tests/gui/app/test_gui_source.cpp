// SPDX-License-Identifier: MIT
// The Source page driven as a user does: a function activated on the
// Hotspots page, then View > Source of the Selected Function; the hottest
// line against `cpcprof annotate` on the same file; a click on an
// instruction selects its line and a click on a line its instructions;
// a file that is not shown says why.
#include "tests/gui/app/gui_harness.h"
#include "tests/view_common/hostile_profiles.h"

#include "gui/app/main_window.h"
#include "gui/app/source_settings.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/source_models.h"
#include "gui/pages/cost_overview.h"
#include "gui/pages/flame_canvas.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/source_page.h"
#include "symbolize/symbolizer.h"

#include <cstdlib>
#include <filesystem>

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <sys/stat.h>

namespace cpcprof::test {
namespace {

using gui::MainWindow;

// The line annotate marks with the most self samples of the first event.
uint32_t annotate_hottest_line(const std::string &file, const std::string &fn) {
    TempDir dir;
    RunResult r = cpcprof(dir, {"annotate", file, fn, "--source-dir", DEMO_SOURCE_DIR});
    EXPECT_EQ(r.status, 0) << r.err;
    std::istringstream in(r.out);
    std::string line;
    uint64_t most = 0;
    uint32_t hot = 0;
    while (std::getline(in, line)) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string t; words >> t;)
            w.push_back(t);
        // self%, samples, total-samples, self:E, total:E, ">", line (one event)
        if (w.size() < 7 || w[5] != ">")
            continue;
        uint64_t self = std::stoull(w[3]);
        if (self > most) {
            most = self;
            hot = uint32_t(std::stoul(w[6]));
        }
    }
    return hot;
}

void click_row(QTableView *v, int row) {
    v->scrollTo(v->model()->index(row, 0));
    QRect r = v->visualRect(v->model()->index(row, 0));
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, r.center());
}

TEST(GuiSource, OpenTheHottestFunctionFromTheHotspotsPage) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));

    // Hotspots, sorted by self cost: double-click the first row, then View >
    // Source of the Selected Function.
    w.tabs()->setCurrentIndex(MainWindow::HotspotsTab);
    auto *hot = qobject_cast<gui::HotspotsPage *>(w.tabs()->currentWidget());
    ASSERT_NE(hot, nullptr);
    QTableView *table = hot->view();
    QModelIndex first = table->model()->index(0, 0);
    uint32_t fn = first.data(gui::FunctionRole).toUInt();
    const std::string name = w.profile()->query->functions()[fn].name;
    QPoint at = table->visualRect(first).center();
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, at);
    QAction *show = w.findChild<QAction *>("showSource");
    ASSERT_NE(show, nullptr);
    show->trigger();
    EXPECT_EQ(w.tabs()->currentIndex(), MainWindow::SourceTab);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fn &&
               page->disassemblyModel()->view() && page->disassemblyModel()->view()->function == fn;
    })) << name;
    const gui::SourceView *v = page->sourceModel()->view();
    ASSERT_FALSE(v->shown_path.empty()) << v->why_not;
    EXPECT_TRUE(page->status()->text().contains(DEMO_SOURCE_DIR))
        << page->status()->text().toStdString();

    // The row selected on opening is the hottest line, the one annotate
    // gives the most self samples, and it is marked #1.
    QModelIndex cur = page->sourceView()->currentIndex();
    ASSERT_TRUE(cur.isValid());
    uint32_t want = annotate_hottest_line(file, name);
    ASSERT_NE(want, 0u);
    EXPECT_EQ(v->lines[size_t(cur.row())].line, want);
    EXPECT_EQ(page->sourceModel()->index(cur.row(), 1).data().toString(), "#1");
    EXPECT_TRUE(page->sourceModel()->index(cur.row(), 0).data(Qt::BackgroundRole).isValid());
    // The overview has a tick for every line with cost.
    size_t ticks = 0;
    for (double x : page->overview()->weights())
        ticks += x > 0;
    size_t costly = 0;
    for (const auto &l : v->lines)
        costly += l.has_cost && l.total.values[0] > 0;
    EXPECT_EQ(ticks, costly);

    // Clicking the hottest instruction selects its source line.
    const gui::DisassemblyView *d = page->disassemblyModel()->view();
    ASSERT_TRUE(d->code.error.empty()) << d->code.error;
    int hottest = 0;
    for (size_t i = 0; i < d->costs.size(); ++i)
        if (d->costs[i].self.samples > d->costs[size_t(hottest)].self.samples)
            hottest = int(i);
    ASSERT_GT(d->costs[size_t(hottest)].self.samples, 0u);
    click_row(page->disassemblyView(), hottest);
    uint32_t insn_line = d->code.instructions[size_t(hottest)].line;
    ASSERT_NE(insn_line, 0u);
    EXPECT_EQ(v->lines[size_t(page->sourceView()->currentIndex().row())].line, insn_line);

    // Clicking a source line selects its instructions (and only those).
    click_row(page->sourceView(), v->rowOfLine(insn_line));
    QModelIndexList picked = page->disassemblyView()->selectionModel()->selectedRows();
    ASSERT_FALSE(picked.isEmpty());
    for (const QModelIndex &i : picked)
        EXPECT_EQ(d->code.instructions[size_t(i.row())].line, insn_line);
}

// Next hot spot (F3) walks the hot lines by rank, #1 to the last and
// round again; Previous (Shift+F3) walks back; the line above the tables
// says which one is shown and its share.
TEST(GuiSource, NextAndPreviousHotSpotWalkTheHotLinesByRank) {
    SKIP_WITHOUT_DEMO_RECORDING();
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    // The demo's function with the most lines that took samples (report
    // --by line): it has two hot lines at least.
    std::map<std::string, int> lines;
    for (const auto &row : report_rows(demo_profile(), {"--by", "line"}))
        if (row.at("self_samples") != "0")
            ++lines[row.at("function")];
    auto most = std::max_element(lines.begin(), lines.end(),
                                 [](const auto &a, const auto &b) { return a.second < b.second; });
    ASSERT_NE(most, lines.end());
    ASSERT_GE(most->second, 2) << "no function of the demo has two lines with samples";
    std::vector<uint32_t> fns = w.profile()->query->find_functions(most->first);
    ASSERT_FALSE(fns.empty()) << most->first;
    w.showSource(fns[0]);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fns[0] &&
               page->disassemblyModel()->view() &&
               page->disassemblyModel()->view()->function == fns[0];
    }));
    // F3 is the window's shortcut: the window has the focus, as a person's.
    w.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
    const gui::SourceView *v = page->sourceModel()->view();
    int ranks = 0;
    for (const gui::SourceLine &l : v->lines)
        ranks = std::max(ranks, l.hot_rank);
    ASSERT_GE(ranks, 2) << most->first << " has two hot lines at least";
    auto shown_rank = [&] {
        QModelIndex cur = page->sourceView()->currentIndex();
        return cur.isValid() ? v->lines[size_t(cur.row())].hot_rank : -1;
    };
    EXPECT_EQ(shown_rank(), 1);
    EXPECT_TRUE(page->hotSpotLabel()->text().startsWith(QString("Hot spot 1 of %1").arg(ranks)))
        << page->hotSpotLabel()->text().toStdString();
    ASSERT_TRUE(page->nextHotSpotButton()->isEnabled());
    // A button's shortcut clicks it as the mouse would (after its press
    // is shown): wait for the page to follow.
    auto press = [&](Qt::KeyboardModifiers mods, int want) {
        QTest::keyClick(page->sourceView(), Qt::Key_F3, mods);
        return wait_for([&] { return shown_rank() == want; }, 3000);
    };
    for (int want = 2; want <= ranks; ++want) {
        EXPECT_TRUE(press({}, want)) << "F3 showed rank " << shown_rank();
        uint32_t line = v->lines[size_t(page->sourceView()->currentIndex().row())].line;
        EXPECT_TRUE(page->hotSpotLabel()->text().contains(QString("line %1, self ").arg(line)))
            << page->hotSpotLabel()->text().toStdString();
        // Its instructions are selected beside it.
        QModelIndexList picked = page->disassemblyView()->selectionModel()->selectedRows();
        for (const QModelIndex &i : picked)
            EXPECT_EQ(page->disassemblyModel()->lineOf(i.row(), v->stored_path, most->first), line);
    }
    EXPECT_TRUE(press({}, 1)) << "round again after the last";
    EXPECT_TRUE(press(Qt::ShiftModifier, ranks)) << "Shift+F3 showed rank " << shown_rank();
    QTest::mouseClick(page->previousHotSpotButton(), Qt::LeftButton);
    EXPECT_EQ(shown_rank(), ranks - 1);
}

// A program without symbols or debug information (the demo, stripped):
// its functions are named by address, the source half has no lines, and
// the page opens at the hottest instruction of the function's FDE extent,
// the disassembly given most of the room; F3 walks the hottest instructions.
TEST(GuiSource, AStrippedFunctionOpensAtItsHottestInstruction) {
    SKIP_WITHOUT_DEMO_RECORDING();
    TempDir dir;
    const std::string stripped = dir.file("demo-stripped");
    const std::string cmd =
        std::string("objcopy --strip-all '") + DEMO_EXE + "' '" + stripped + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    RunResult r =
        run_cpcprof(dir, {"record", "-q", "-o", "stripped.cpcprof", "--", stripped, "1"}, 60);
    ASSERT_EQ(r.status, 0) << r.err;
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    ASSERT_TRUE(open_and_wait(w, dir.file("stripped.cpcprof")));
    // The function with the most self samples: the demo's walk_list, by address.
    const auto &self = w.profile()->query->function_self();
    uint32_t fn = uint32_t(
        std::max_element(self.begin(), self.end(),
                         [](const auto &a, const auto &b) { return a.samples < b.samples; }) -
        self.begin());
    const std::string name = w.profile()->query->functions()[fn].name;
    ASSERT_EQ(name.rfind("demo-stripped+0x", 0), 0u) << name;
    w.showSource(fn);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fn &&
               page->disassemblyModel()->view() && page->disassemblyModel()->view()->function == fn;
    }));
    const gui::DisassemblyView *d = page->disassemblyModel()->view();
    ASSERT_TRUE(d->code.error.empty()) << d->code.error;
    EXPECT_NE(d->code.symbol.find("call-frame information"), std::string::npos) << d->code.symbol;
    EXPECT_EQ(page->sourceModel()->rowCount(), 0) << "no lines without debug information";
    bool instructions = false;
    std::vector<int> hot = page->hotSpots(&instructions);
    ASSERT_TRUE(instructions);
    ASSERT_FALSE(hot.empty());
    int hottest = 0;
    for (size_t i = 0; i < d->costs.size(); ++i)
        if (d->costs[i].self.values[0] > d->costs[size_t(hottest)].self.values[0])
            hottest = int(i);
    EXPECT_EQ(hot[0], hottest);
    QModelIndex cur = page->disassemblyView()->currentIndex();
    ASSERT_TRUE(cur.isValid());
    EXPECT_EQ(page->disassemblyView()->model()->index(cur.row(), 0).data(gui::SortRole).toDouble(),
              double(d->code.instructions[size_t(hottest)].address))
        << "opened at the hottest instruction";
    EXPECT_TRUE(page->hotSpotLabel()->text().startsWith("Hot spot 1 of"))
        << page->hotSpotLabel()->text().toStdString();
    // Once laid out (the room is shared when the page has its width).
    EXPECT_TRUE(wait_for([&] {
        return page->disassemblyView()->width() > page->sourceView()->width() * 2;
    })) << "the disassembly has most of the room: "
        << page->disassemblyView()->width() << " pixels beside " << page->sourceView()->width();
}

// A click on a cost header sorts the disassembly by it, hottest first,
// and the line selected beside stays linked; a click on Address puts the
// instructions back in order.
TEST(GuiSource, AClickOnAHeaderSortsTheInstructions) {
    SKIP_WITHOUT_DEMO_RECORDING();
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1400, 900);
    w.show();
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    std::vector<uint32_t> fns = w.profile()->query->find_functions("walk_list");
    ASSERT_EQ(fns.size(), 1u);
    w.showSource(fns[0]);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->disassemblyModel()->view() &&
               page->disassemblyModel()->view()->function == fns[0];
    }));
    QTableView *dis = page->disassemblyView();
    const gui::DisassemblyView *d = page->disassemblyModel()->view();
    ASSERT_GT(d->code.instructions.size(), 3u);
    wait_for([] { return false; }, 100); // the columns fitted, as a person sees them
    int col = page->disassemblyModel()->eventColumn(0, gui::CostColumn::Kind::Self);
    ASSERT_GE(col, 0);
    auto click_header = [&](int section) {
        // Apart enough that two clicks are not a double-click.
        QTest::qWait(QApplication::doubleClickInterval() + 50);
        QHeaderView *h = dis->horizontalHeader();
        QTest::mouseClick(h->viewport(), Qt::LeftButton, {},
                          QPoint(h->sectionViewportPosition(section) + h->sectionSize(section) / 2,
                                 h->height() / 2));
    };
    auto address_at = [&](int shown_row) {
        return dis->model()->index(shown_row, 0).data(gui::SortRole).toDouble();
    };
    // Clicks on the header until it sorts by col, largest first.
    auto sort_by = [&](int section, Qt::SortOrder order) {
        QHeaderView *h = dis->horizontalHeader();
        for (int i = 0;
             i < 3 && !(h->sortIndicatorSection() == section && h->sortIndicatorOrder() == order);
             ++i)
            click_header(section);
        return h->sortIndicatorSection() == section && h->sortIndicatorOrder() == order;
    };
    ASSERT_TRUE(sort_by(col, Qt::DescendingOrder));
    uint64_t most = 0;
    for (const auto &c : d->costs)
        most = std::max(most, c.self.values[0]);
    ASSERT_GT(most, 0u);
    auto *proxy = qobject_cast<QSortFilterProxyModel *>(dis->model());
    ASSERT_NE(proxy, nullptr);
    EXPECT_EQ(dis->model()->index(0, col).data(gui::SortRole).toDouble(), double(most))
        << "proxy sorts column " << proxy->sortColumn() << " order " << int(proxy->sortOrder());
    for (int r = 1; r < dis->model()->rowCount(); ++r)
        EXPECT_GE(dis->model()->index(r - 1, col).data(gui::SortRole).toDouble(),
                  dis->model()->index(r, col).data(gui::SortRole).toDouble());
    // The top row, clicked, selects its own line on the left.
    QTest::mouseClick(dis->viewport(), Qt::LeftButton, {},
                      dis->visualRect(dis->model()->index(0, 0)).center());
    uint64_t address = uint64_t(address_at(0));
    uint32_t line = 0;
    for (const auto &i : d->code.instructions)
        if (i.address == address)
            line = i.line;
    ASSERT_NE(line, 0u);
    const gui::SourceView *v = page->sourceModel()->view();
    EXPECT_EQ(v->lines[size_t(page->sourceView()->currentIndex().row())].line, line);

    ASSERT_TRUE(sort_by(0, Qt::AscendingOrder));
    for (int r = 1; r < dis->model()->rowCount(); ++r)
        EXPECT_LT(address_at(r - 1), address_at(r));
}

// Two events (cpu-clock sampling, page-faults counted): the Source
// page's cells of every event column hold annotate's figures, line by line
// and instruction by instruction.
TEST(GuiSource, EveryEventColumnHoldsAnnotatesFigures) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = two_event_profile();
    ASSERT_FALSE(file.empty());
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.show();
    ASSERT_TRUE(open_and_wait(w, file));
    const auto &q = *w.profile()->query;
    ASSERT_EQ(q.events().size(), 2u);
    std::vector<uint32_t> fns = q.find_functions("main");
    ASSERT_FALSE(fns.empty());
    uint32_t fn = fns[0];
    w.showSource(fn);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fn &&
               page->disassemblyModel()->view() && page->disassemblyModel()->view()->function == fn;
    }));
    TempDir dir;
    auto rows_of = [&](std::vector<std::string> more) {
        std::vector<std::string> args = {"annotate", file, "main", "--source-dir", DEMO_SOURCE_DIR};
        args.insert(args.end(), more.begin(), more.end());
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << r.err;
        // samples, total-samples, then self and total per event, by key
        std::map<std::string, std::vector<std::string>> rows;
        std::istringstream in(r.out);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream words(line);
            std::vector<std::string> t;
            for (std::string x; words >> x;)
                t.push_back(x);
            if (t.size() > 8 && t[7] == ">")
                rows[t[8]] = {t.begin() + 1, t.begin() + 7};
        }
        return rows;
    };
    auto cells = [](const gui::CostRowsModel &m, int row) {
        std::vector<std::string> c;
        for (int e = 0; e < 2; ++e)
            for (auto kind : {gui::CostColumn::Kind::Self, gui::CostColumn::Kind::Total}) {
                QVariant v = m.index(row, m.eventColumn(e, kind)).data(gui::SortRole);
                c.push_back(std::to_string(uint64_t(v.toDouble())));
            }
        return c;
    };
    auto lines = rows_of({});
    ASSERT_FALSE(lines.empty());
    const gui::SourceView *v = page->sourceModel()->view();
    size_t compared = 0;
    for (size_t i = 0; i < v->lines.size(); ++i) {
        if (!v->lines[i].has_cost)
            continue;
        auto it = lines.find(std::to_string(v->lines[i].line));
        ASSERT_NE(it, lines.end()) << "line " << v->lines[i].line;
        std::vector<std::string> want(it->second.begin() + 2, it->second.end());
        EXPECT_EQ(cells(*page->sourceModel(), int(i)), want) << "line " << v->lines[i].line;
        ++compared;
    }
    EXPECT_EQ(compared, lines.size());
    auto insns = rows_of({"--disassemble"});
    ASSERT_FALSE(insns.empty());
    const gui::DisassemblyView *d = page->disassemblyModel()->view();
    compared = 0;
    for (size_t i = 0; i < d->costs.size(); ++i) {
        if (d->costs[i].total.samples == 0)
            continue;
        char addr[24];
        std::snprintf(addr, sizeof addr, "0x%llx",
                      (unsigned long long)d->code.instructions[i].address);
        auto it = insns.find(addr);
        ASSERT_NE(it, insns.end()) << addr;
        std::vector<std::string> want(it->second.begin() + 2, it->second.end());
        EXPECT_EQ(cells(*page->disassemblyModel(), int(i)), want) << addr;
        ++compared;
    }
    EXPECT_EQ(compared, insns.size());
}

TEST(GuiSource, TheRowClickedInATreeIsTheFunctionShown) {
    SKIP_WITHOUT_DEMO_RECORDING();
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    w.tabs()->setCurrentIndex(MainWindow::BottomUpTab);
    QAbstractItemView *tree = w.tabs()->currentWidget()->findChild<QTreeView *>();
    ASSERT_NE(tree, nullptr);
    ASSERT_GE(tree->model()->rowCount(), 2);
    // The second row: not what a default would pick.
    QModelIndex row = tree->model()->index(1, 0);
    uint32_t fn = row.data(gui::FunctionRole).toUInt();
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(row).center());
    ASSERT_EQ(tree->currentIndex().row(), 1);
    w.findChild<QAction *>("showSource")->trigger();
    EXPECT_EQ(w.tabs()->currentIndex(), MainWindow::SourceTab);
    EXPECT_TRUE(wait_for([&] {
        const gui::SourceView *v = w.sourcePage()->sourceModel()->view();
        return v && v->function == fn;
    })) << w.profile()->query->functions()[fn].name;

    // On the flame graph: the frame zoomed into.
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    gui::FlameCanvas *canvas = w.flameGraph()->canvas();
    const auto &nodes = canvas->tree()->nodes();
    ASSERT_FALSE(nodes[0].children.empty());
    uint32_t node = nodes[0].children.front();
    uint32_t zoomed = nodes[node].function;
    ASSERT_NE(zoomed, fn);
    canvas->zoomTo(node);
    w.findChild<QAction *>("showSource")->trigger();
    EXPECT_TRUE(wait_for([&] {
        const gui::SourceView *v = w.sourcePage()->sourceModel()->view();
        return v && v->function == zoomed;
    })) << w.profile()->query->functions()[zoomed].name;
}

// Opening another file while the page shows a function: the page does
// not keep the old function's header over empty tables.  Another file
// without that function clears it; the same program's file (a reload)
// shows the function again.
TEST(GuiSource, AnotherProfileClearsOrRefreshesThePage) {
    SKIP_WITHOUT_DEMO_RECORDING();
    TempDir dir;
    std::string other = dir.file("deep.cpcprof");
    write_deep_profile(other, 20, 20, false);
    MainWindow w;
    w.setSourceOptions({DEMO_SOURCE_DIR}, {});
    w.resize(1200, 800);
    w.show();
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    uint32_t walk = UINT32_MAX;
    const auto &fns = w.profile()->query->functions();
    for (size_t i = 0; i < fns.size(); ++i)
        if (fns[i].name == "walk_list")
            walk = uint32_t(i);
    ASSERT_NE(walk, UINT32_MAX);
    w.showSource(walk);
    auto *title = w.sourcePage()->findChild<QLabel *>("sourceTitle");
    ASSERT_NE(title, nullptr);
    ASSERT_TRUE(wait_for([&] { return !w.sourcePage()->status()->text().startsWith("Reading"); }));
    EXPECT_TRUE(title->text().contains("walk_list")) << title->text().toStdString();

    ASSERT_TRUE(open_and_wait(w, other));
    EXPECT_FALSE(title->text().contains("walk_list")) << title->text().toStdString();
    EXPECT_TRUE(title->text().contains("No function chosen")) << title->text().toStdString();
    EXPECT_TRUE(w.sourcePage()->status()->text().isEmpty())
        << w.sourcePage()->status()->text().toStdString();
    EXPECT_EQ(w.sourcePage()->sourceModel()->view(), nullptr);

    w.showSource(0); // f0 of the deep profile
    ASSERT_TRUE(open_and_wait(w, demo_profile()));
    EXPECT_TRUE(title->text().contains("No function chosen")) << title->text().toStdString();
    w.showSource(walk);
    ASSERT_TRUE(open_and_wait(w, demo_profile())); // a reload
    EXPECT_TRUE(title->text().contains("walk_list")) << title->text().toStdString();
    EXPECT_TRUE(wait_for([&] {
        const gui::SourceView *v = w.sourcePage()->sourceModel()->view();
        return v && w.profile()->query->functions()[v->function].name == "walk_list";
    }));
}

TEST(GuiSource, SaysWhyAFileIsNotShown) {
    TempDir dir;
    std::string known = dir.file("known.cpcprof");
    storagetest::write_known_profile(known); // names /src/a.c, which is not here
    std::string moved = dir.file("moved");
    ASSERT_EQ(::mkdir(moved.c_str(), 0755), 0);
    ASSERT_EQ(::mkfifo((moved + "/a.c").c_str(), 0644), 0);
    MainWindow w;
    w.setSourceOptions({}, {QString::fromStdString("/src=" + moved)});
    w.show();
    ASSERT_TRUE(open_and_wait(w, known));
    std::vector<uint32_t> fns = w.profile()->query->find_functions("recurse");
    ASSERT_EQ(fns.size(), 1u);
    w.showSource(fns[0]);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->sourceModel()->view() && page->sourceModel()->view()->function == fns[0];
    }));
    QString status = page->status()->text();
    EXPECT_TRUE(status.contains("not shown")) << status.toStdString();
    EXPECT_TRUE(status.contains("FIFO")) << status.toStdString();
    EXPECT_TRUE(status.contains("not found")) << status.toStdString();
    // The lines with costs are still listed, with their numbers.
    const gui::SourceView *v = page->sourceModel()->view();
    ASSERT_GE(v->rowOfLine(30), 0);
    EXPECT_EQ(v->lines[size_t(v->rowOfLine(30))].self.samples, 4u);
}

// Settings > Source Directories: a bad OLD=NEW line is named and not
// saved; good lines are kept in QSettings and become roots after the
// command line's.
TEST(GuiSource, SettingsPageKeepsDirectoriesAndPathMaps) {
    {
        gui::SourceSettingsDialog d;
        d.dirsEdit()->setPlainText("/srv/src\n\n  /opt/other  \n");
        d.mapsEdit()->setPlainText("/build=/srv/src\nno-equals-sign\n");
        d.accept();
        EXPECT_EQ(d.result(), QDialog::Rejected);
        QLabel *error = nullptr;
        for (QLabel *l : d.findChildren<QLabel *>())
            if (l->text().contains("no-equals-sign"))
                error = l;
        EXPECT_NE(error, nullptr) << "the bad line is not named";
        d.mapsEdit()->setPlainText("/build=/srv/src\n");
        d.accept();
        EXPECT_EQ(d.result(), QDialog::Accepted);
    }
    cpcprof::analysis::SourceRoots r = gui::source_roots({"/cli/dir"}, {"/old=/new"});
    ASSERT_EQ(r.dirs.size(), 3u);
    EXPECT_EQ(r.dirs[0], "/cli/dir");
    EXPECT_EQ(r.dirs[1], "/srv/src");
    EXPECT_EQ(r.dirs[2], "/opt/other");
    ASSERT_EQ(r.remaps.size(), 2u);
    EXPECT_EQ(r.remaps[0], std::make_pair(std::string("/old"), std::string("/new")));
    EXPECT_EQ(r.remaps[1], std::make_pair(std::string("/build"), std::string("/srv/src")));
    gui::SourceSettingsDialog cleared;
    cleared.dirsEdit()->clear();
    cleared.mapsEdit()->clear();
    cleared.accept();
    EXPECT_TRUE(gui::source_roots({}, {}).dirs.empty());
}

// A stripped program whose debug file an earlier lookup left in
// libdebuginfod's cache: record names its functions from it, and the
// disassembly pane takes the function's extent, lines and call targets
// from it, saying so.
TEST(GuiSource, AStrippedFunctionIsNamedFromDebuginfodsCache) {
    SKIP_WITHOUT_DEMO_RECORDING();
    TempDir dir;
    const std::string stripped = dir.file("demo-stripped");
    ASSERT_EQ(
        std::system(
            (std::string("objcopy --strip-all '") + DEMO_EXE + "' '" + stripped + "'").c_str()),
        0);
    const std::string id = symbolize::read_build_id(stripped);
    ASSERT_FALSE(id.empty());
    std::filesystem::create_directories(dir.file("cache/" + id));
    std::filesystem::copy_file(DEMO_EXE, dir.file("cache/" + id + "/debuginfo"));
    struct CachePath { // for this test's record and viewer only
        explicit CachePath(const std::string &p) { setenv("DEBUGINFOD_CACHE_PATH", p.c_str(), 1); }
        ~CachePath() { unsetenv("DEBUGINFOD_CACHE_PATH"); }
    } cache(dir.file("cache"));
    RunResult r =
        run_cpcprof(dir, {"record", "-q", "-o", "stripped.cpcprof", "--", stripped, "1"}, 60);
    ASSERT_EQ(r.status, 0) << r.err;
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    ASSERT_TRUE(open_and_wait(w, dir.file("stripped.cpcprof")));
    const std::vector<uint32_t> walk = w.profile()->query->find_functions("walk_list");
    ASSERT_EQ(walk.size(), 1u) << "record did not name the demo from the cache";
    const uint32_t fn = walk[0];
    w.showSource(fn);
    gui::SourcePage *page = w.sourcePage();
    ASSERT_TRUE(wait_for([&] {
        return page->disassemblyModel()->view() && page->disassemblyModel()->view()->function == fn;
    }));
    const gui::DisassemblyView *d = page->disassemblyModel()->view();
    ASSERT_TRUE(d->code.error.empty()) << d->code.error;
    EXPECT_EQ(d->code.symbol, "walk_list");
    EXPECT_EQ(d->code.debug_file, dir.file("cache/" + id + "/debuginfo"));
    EXPECT_EQ(d->code.debug_from, "from debuginfod's cache");
    size_t with_lines = 0;
    for (const auto &i : d->code.instructions)
        with_lines += !i.file.empty() && i.line != 0;
    EXPECT_GT(with_lines, d->code.instructions.size() / 2) << "lines from the debug file";
    QLabel *status = page->findChild<QLabel *>("disassemblyStatus");
    ASSERT_NE(status, nullptr);
    EXPECT_TRUE(status->text().contains("named from")) << status->text().toStdString();
}

} // namespace
} // namespace cpcprof::test
