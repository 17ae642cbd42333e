// SPDX-License-Identifier: MIT
// The flame graph page driven as a user does: click to zoom, breadcrumb,
// Esc, search with its share against `cpcprof report`, export.
#include "tests/gui/app/gui_harness.h"
#include "tests/view_common/hostile_profiles.h"

#include "gui/app/main_window.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/filter_stack_bar.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/tree_page.h"

#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace cpcprof::test {
namespace {

using gui::FlameCanvas;
using gui::FlameFrame;
using gui::MainWindow;

class GuiFlame : public ::testing::Test {
  protected:
    void SetUp() override {
        SKIP_WITHOUT_DEMO_RECORDING();
        file = demo_profile();
        ASSERT_FALSE(file.empty());
        w = std::make_unique<MainWindow>();
        w->resize(1200, 800);
        w->show();
        w->tabs()->setCurrentIndex(MainWindow::FlameTab);
        w->openFile(QString::fromStdString(file));
        ASSERT_TRUE(wait_for([&] { return w->profile() != nullptr; }));
        canvas = w->flameGraph()->canvas();
        ASSERT_TRUE(wait_for([&] { return !canvas->layout().frames.empty(); }));
    }
    std::string name(const FlameFrame &f) const {
        return canvas->profile()->query->functions()[canvas->tree()->nodes()[f.node].function].name;
    }
    // The drawn frames of function fn.
    std::vector<FlameFrame> frames_of(const std::string &fn) const {
        std::vector<FlameFrame> out;
        for (const FlameFrame &f : canvas->layout().frames)
            if (name(f) == fn)
                out.push_back(f);
        return out;
    }
    // Whether node lies under (or is) top in the tree.
    bool under(uint32_t node, uint32_t top) const {
        const auto &nodes = canvas->tree()->nodes();
        for (uint32_t v = node; v != 0; v = nodes[v].parent)
            if (v == top)
                return true;
        return top == 0;
    }

    std::string file;
    std::unique_ptr<MainWindow> w;
    FlameCanvas *canvas = nullptr;
};

TEST_F(GuiFlame, ClickZoomsBreadcrumbFollowsEscZoomsOut) {
    std::vector<FlameFrame> walk = frames_of("walk_list");
    ASSERT_EQ(walk.size(), 1u) << "walk_list has one path in the demo";
    ASSERT_FALSE(frames_of("checksum").empty());
    double walk_width = walk[0].width;
    ASSERT_LT(walk_width, canvas->width() * 0.9);
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->frameRect(walk[0]).center().toPoint());
    EXPECT_EQ(canvas->zoom(), walk[0].node);

    // Breadcrumb: all > the path from the root to walk_list.
    QString crumb = w->flameGraph()->breadcrumb();
    EXPECT_TRUE(crumb.startsWith("all > ")) << crumb.toStdString();
    EXPECT_TRUE(crumb.endsWith(" > walk_list")) << crumb.toStdString();
    EXPECT_EQ(crumb.count(" > "), int(walk[0].row) + 1) << crumb.toStdString();

    // walk_list now spans the width; everything drawn is its path or under it.
    std::vector<FlameFrame> zoomed = frames_of("walk_list");
    ASSERT_EQ(zoomed.size(), 1u);
    EXPECT_DOUBLE_EQ(zoomed[0].x, 0);
    EXPECT_DOUBLE_EQ(zoomed[0].width, double(canvas->width()));
    EXPECT_TRUE(frames_of("checksum").empty());
    for (const FlameFrame &f : canvas->layout().frames)
        EXPECT_TRUE(f.ancestor || under(f.node, walk[0].node)) << name(f);
    // And the pixels say so: walk_list's colour across its row.
    QImage img = canvas->grab().toImage();
    QRectF r = canvas->frameRect(zoomed[0]);
    QColor want = canvas->fillColour(zoomed[0].node);
    for (double x : {r.left() + 10, r.center().x(), r.right() - 10})
        EXPECT_EQ(img.pixelColor(QPoint(int(x), int(r.top() + 1))).rgb(), want.rgb()) << x;

    // Esc goes back to everything.
    QTest::keyClick(canvas, Qt::Key_Escape);
    EXPECT_EQ(canvas->zoom(), 0u);
    EXPECT_EQ(w->flameGraph()->breadcrumb().toStdString(), "all");
    ASSERT_EQ(frames_of("walk_list").size(), 1u);
    EXPECT_DOUBLE_EQ(frames_of("walk_list")[0].width, walk_width);
    EXPECT_FALSE(frames_of("checksum").empty());
}

TEST_F(GuiFlame, WidthsAreReportShares) {
    for (const char *fn : {"walk_list", "checksum", "matrix_multiply"}) {
        double total = std::stod(report_row(file, fn)["total_pct_cpu-clock"]) / 100;
        double drawn = 0;
        for (const FlameFrame &f : frames_of(fn))
            drawn += f.width;
        EXPECT_NEAR(drawn / canvas->width(), total, 0.0005) << fn;
    }
}

TEST_F(GuiFlame, SearchStatesShareOfReport) {
    auto *box = w->flameGraph()->findChild<QLineEdit *>("flameSearch");
    ASSERT_NE(box, nullptr);
    QTest::keyClicks(box, "walk_list");
    ASSERT_TRUE(wait_for([&] {
        const gui::SearchResult *s = w->flameGraph()->search();
        return s && s->pattern == "walk_list";
    }));
    double report = std::stod(report_row(file, "walk_list")["total_pct_cpu-clock"]);
    ASSERT_TRUE(w->flameGraph()->searchShare());
    EXPECT_NEAR(*w->flameGraph()->searchShare() * 100, report, 0.00051);
    QString label = w->flameGraph()->findChild<QLabel *>("flameMatches")->text();
    EXPECT_TRUE(label.contains(QString::number(report, 'f', 2) + " % of cpu-clock"))
        << label.toStdString() << " vs " << report;
    // Matches are painted in the highlight colour, the rest not.
    std::vector<FlameFrame> walk = frames_of("walk_list");
    ASSERT_EQ(walk.size(), 1u);
    QColor hit = canvas->fillColour(walk[0].node);
    for (const FlameFrame &f : canvas->layout().frames) {
        if (name(f) != "walk_list") {
            EXPECT_NE(canvas->fillColour(f.node), hit) << name(f);
        }
    }

    // A regular expression of two functions that no stack has together
    // (walk_list runs on the main thread, checksum on the other): the sum.
    w->flameGraph()->findChild<QCheckBox *>("flameRegex")->click();
    box->clear();
    QTest::keyClicks(box, "^(walk_list|checksum)$");
    ASSERT_TRUE(wait_for([&] {
        const gui::SearchResult *s = w->flameGraph()->search();
        return s && s->regex && s->pattern == "^(walk_list|checksum)$";
    }));
    EXPECT_EQ(w->flameGraph()->search()->functions.size(), 2u);
    double both = report + std::stod(report_row(file, "checksum")["total_pct_cpu-clock"]);
    EXPECT_NEAR(*w->flameGraph()->searchShare() * 100, both, 0.001);

    // A bad expression is named, not a crash.
    box->clear();
    QTest::keyClicks(box, "(unclosed");
    ASSERT_TRUE(wait_for([&] {
        const gui::SearchResult *s = w->flameGraph()->search();
        return s && s->pattern == "(unclosed";
    }));
    EXPECT_FALSE(w->flameGraph()->search()->error.empty());
    EXPECT_TRUE(w->flameGraph()
                    ->findChild<QLabel *>("flameMatches")
                    ->text()
                    .contains("invalid regular expression"));
}

TEST_F(GuiFlame, InvertedShowsBottomUpTree) {
    auto *inverted = w->flameGraph()->findChild<QCheckBox *>("flameInverted");
    ASSERT_TRUE(inverted->isEnabled());
    inverted->click();
    ASSERT_TRUE(canvas->inverted());
    // Innermost functions are the roots: walk_list is on the first row with
    // its self share.
    std::vector<FlameFrame> walk = frames_of("walk_list");
    ASSERT_FALSE(walk.empty());
    EXPECT_EQ(walk[0].row, 0u);
    double self = std::stod(report_row(file, "walk_list")["self_pct_cpu-clock"]) / 100;
    EXPECT_NEAR(walk[0].width / canvas->width(), self, 0.0005);
}

// File > Export writes the page `cpcprof flamegraph` writes for the same
// file (the same frames, a tooltip per frame, its zoom and search
// script), SVG or HTML, and a PNG of the canvas.
TEST_F(GuiFlame, ExportsTheInteractivePagesAndAPicture) {
    TempDir dir;
    QString svg = QString::fromStdString(dir.file("f.svg"));
    QString html = QString::fromStdString(dir.file("f.html"));
    QString png = QString::fromStdString(dir.file("f.png"));
    QString error;
    ASSERT_TRUE(canvas->exportPage(svg, false, &error)) << error.toStdString();
    ASSERT_TRUE(canvas->exportPage(html, true, &error)) << error.toStdString();
    ASSERT_TRUE(canvas->exportPng(png, &error)) << error.toStdString();
    auto count = [](const std::string &text, const std::string &what) {
        size_t n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
            ++n;
        return n;
    };
    std::string text = read_file(svg.toStdString());
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_NE(text.find("<script"), std::string::npos) << "click-to-zoom and search";
    EXPECT_NE(text.find("walk_list"), std::string::npos);
    EXPECT_NE(text.find("Flame graph: " + file), std::string::npos) << "titled";
    // The frames and their tooltips are those of `cpcprof flamegraph`.
    RunResult cli = cpcprof(dir, {"flamegraph", file, "-o", dir.file("cli.svg")});
    ASSERT_EQ(cli.status, 0) << cli.err;
    std::string want = read_file(dir.file("cli.svg"));
    EXPECT_GT(count(text, "<title>"), 10u);
    EXPECT_EQ(count(text, "<title>"), count(want, "<title>"));
    EXPECT_EQ(count(text, "<rect"), count(want, "<rect"));
    std::string page = read_file(html.toStdString());
    EXPECT_NE(page.find("application/json"), std::string::npos);
    EXPECT_NE(page.find("walk_list"), std::string::npos);
    RunResult cli_html = cpcprof(dir, {"flamegraph", file, "-o", dir.file("cli.html")});
    ASSERT_EQ(cli_html.status, 0) << cli_html.err;
    EXPECT_EQ(page.size() - page.find("<script type=\"application/json\""),
              read_file(dir.file("cli.html")).size() -
                  read_file(dir.file("cli.html")).find("<script type=\"application/json\""))
        << "the same tree as JSON";

    QImage img(png);
    ASSERT_FALSE(img.isNull());
    EXPECT_EQ(img.size(), canvas->size());
    std::vector<FlameFrame> walk = frames_of("walk_list");
    ASSERT_EQ(walk.size(), 1u);
    QRectF wr = canvas->frameRect(walk[0]);
    EXPECT_EQ(img.pixelColor(QPoint(int(wr.center().x()), int(wr.top() + 1))).rgb(),
              canvas->fillColour(walk[0].node).rgb());
    // A place that cannot be written is said so, and nothing is left there.
    EXPECT_FALSE(canvas->exportPng("/nonexistent-dir/f.png", &error));
    EXPECT_TRUE(error.contains("/nonexistent-dir/f.png"));
    EXPECT_FALSE(canvas->exportPage("/nonexistent-dir/f.svg", false, &error));
    EXPECT_TRUE(error.contains("/nonexistent-dir/f.svg"));
}

TEST_F(GuiFlame, ContextMenuShowsFunctionInOtherPages) {
    std::vector<FlameFrame> walk = frames_of("walk_list");
    ASSERT_EQ(walk.size(), 1u);
    QPoint at = canvas->frameRect(walk[0]).center().toPoint();
    for (auto [item, tab] : {std::pair{"Show in bottom-up", MainWindow::BottomUpTab},
                             std::pair{"Show in caller/callee", MainWindow::CallerCalleeTab},
                             std::pair{"Show in top-down", MainWindow::TopDownTab}}) {
        SCOPED_TRACE(item);
        w->tabs()->setCurrentIndex(MainWindow::FlameTab);
        QStringList offered = pick_from_context_menu(canvas, at, item);
        EXPECT_TRUE(offered.contains(item)) << offered.join(", ").toStdString();
        EXPECT_EQ(w->tabs()->currentIndex(), int(tab));
    }
}

// The graph fills its page from the top: on the demo (a few levels, far
// shorter than the page) its deepest row is the page's first, nothing
// blank above it.
// The context menu's "Keep only stacks through this function" and "Hide
// stacks through this function" add a filter step that keeps the samples
// `cpcprof report --through F` / `--not-through F` keeps.
TEST_F(GuiFlame, KeepOrHideTheStacksThroughAFunction) {
    auto report_kept = [&](const std::string &option) {
        TempDir dir;
        RunResult r = cpcprof(dir, {"report", file, option, "walk_list"});
        EXPECT_EQ(r.status, 0) << r.err;
        size_t at = r.out.find("# samples: ");
        EXPECT_NE(at, std::string::npos) << r.out;
        return std::stoull(r.out.substr(at + 11));
    };
    const uint64_t all = canvas->profile()->query->samples_kept();
    for (auto [item, option] : {std::pair{"Keep only stacks through this function", "--through"},
                                std::pair{"Hide stacks through this function", "--not-through"}}) {
        SCOPED_TRACE(item);
        std::vector<FlameFrame> walk = frames_of("walk_list");
        ASSERT_EQ(walk.size(), 1u);
        bool applied = false;
        auto conn = QObject::connect(w.get(), &MainWindow::filtersApplied, [&] { applied = true; });
        QStringList offered =
            pick_from_context_menu(canvas, canvas->frameRect(walk[0]).center().toPoint(), item);
        EXPECT_TRUE(offered.contains(item)) << offered.join(", ").toStdString();
        ASSERT_TRUE(wait_for([&] { return applied; }));
        QObject::disconnect(conn);
        const uint64_t kept = w->profile()->query->samples_kept();
        EXPECT_EQ(kept, report_kept(option));
        EXPECT_LT(kept, all);
        EXPECT_GT(kept, 0u);
        EXPECT_TRUE(w->filterBar()->text().contains(QString(
            option == std::string("--through") ? "through walk_list" : "not through walk_list")))
            << w->filterBar()->text().toStdString();
        ASSERT_TRUE(wait_for([&] { return canvas->profile() == w->profile().get(); }));
        EXPECT_EQ(frames_of("walk_list").empty(), option == std::string("--not-through"));
        QTest::mouseClick(w->filterBar()->backButton(), Qt::LeftButton);
        ASSERT_TRUE(wait_for([&] { return w->profile()->query->samples_kept() == all; }));
        ASSERT_TRUE(wait_for([&] { return !canvas->layout().frames.empty(); }));
    }
}

TEST_F(GuiFlame, TheGraphStartsAtTheTopOfThePage) {
    uint32_t deepest = 0;
    for (const FlameFrame &f : canvas->layout().frames)
        deepest = std::max(deepest, f.row);
    ASSERT_LT(double(deepest + 1) * canvas->frameRect(canvas->layout().frames[0]).height(),
              canvas->height() / 2.0)
        << "the demo's graph is shallower than half the page";
    for (const FlameFrame &f : canvas->layout().frames) {
        if (f.row == deepest) {
            EXPECT_LE(canvas->frameRect(f).top(), 0.0);
        }
        if (f.row == 0) {
            EXPECT_LT(canvas->frameRect(f).bottom(), canvas->height() / 2.0)
                << "the root is the graph's bottom row, not the page's";
        }
    }
}

// The keyboard walks the frames as the mouse would: the first arrow
// selects the widest root, Up its widest callee, Down its caller,
// Left/Right the neighbours in the row; Enter zooms, Esc zooms out; the
// line under the breadcrumb states the selected frame's share.
TEST_F(GuiFlame, ArrowKeysWalkTheFramesEnterZooms) {
    canvas->setFocus();
    const auto &nodes = canvas->tree()->nodes();
    auto frame = [&](uint32_t node) -> const FlameFrame * {
        for (const FlameFrame &f : canvas->layout().frames)
            if (f.node == node)
                return &f;
        return nullptr;
    };
    EXPECT_EQ(canvas->selected(), 0u);
    QTest::keyClick(canvas, Qt::Key_Up);
    ASSERT_NE(canvas->selected(), 0u);
    const FlameFrame *root = frame(canvas->selected());
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->row, 0u);
    for (const FlameFrame &f : canvas->layout().frames)
        if (f.row == 0) {
            EXPECT_LE(f.width, root->width);
        }

    // Up to the deepest frame, each step the widest callee.
    int steps = 0;
    for (;;) {
        uint32_t from = canvas->selected();
        QTest::keyClick(canvas, Qt::Key_Up);
        if (canvas->selected() == from)
            break;
        ++steps;
        EXPECT_EQ(nodes[canvas->selected()].parent, from);
        for (const FlameFrame &f : canvas->layout().frames)
            if (nodes[f.node].parent == from) {
                EXPECT_LE(f.width, frame(canvas->selected())->width);
            }
    }
    ASSERT_GE(steps, 2) << "the demo's stacks are deeper than two";
    uint32_t leaf = canvas->selected();
    QTest::keyClick(canvas, Qt::Key_Down);
    EXPECT_EQ(canvas->selected(), nodes[leaf].parent);
    auto *line = w->flameGraph()->findChild<QLabel *>("flameSelection");
    ASSERT_NE(line, nullptr);
    const std::string fn =
        canvas->profile()->query->functions()[nodes[canvas->selected()].function].name;
    EXPECT_TRUE(line->text().contains(QString::fromStdString(fn))) << line->text().toStdString();
    EXPECT_TRUE(line->text().contains(" %")) << line->text().toStdString();

    // Left and Right: the nearest frame of the row on that side.
    const FlameFrame *left = nullptr, *right = nullptr;
    for (const FlameFrame &f : canvas->layout().frames)
        for (const FlameFrame &g : canvas->layout().frames)
            if (!left && f.row == g.row && f.x < g.x)
                left = &f, right = &g;
    ASSERT_NE(left, nullptr) << "some row of the demo has two frames";
    for (const FlameFrame &g : canvas->layout().frames)
        if (g.row == left->row && g.x > left->x && g.x < right->x)
            right = &g;
    canvas->select(left->node);
    QTest::keyClick(canvas, Qt::Key_Right);
    EXPECT_EQ(canvas->selected(), right->node);
    QTest::keyClick(canvas, Qt::Key_Left);
    EXPECT_EQ(canvas->selected(), left->node);

    uint32_t chosen = canvas->selected();
    QTest::keyClick(canvas, Qt::Key_Return);
    EXPECT_EQ(canvas->zoom(), chosen);
    QTest::keyClick(canvas, Qt::Key_Escape);
    EXPECT_EQ(canvas->zoom(), 0u);
}

// One hue per module, told apart at a glance; a module's functions are
// shades of its hue.
TEST_F(GuiFlame, EachModuleHasAHueOfItsOwn) {
    const auto &functions = canvas->profile()->query->functions();
    std::map<std::string, std::set<int>> hues;
    for (const FlameFrame &f : canvas->layout().frames) {
        const auto &n = canvas->tree()->nodes()[f.node];
        hues[functions[n.function].module].insert(canvas->fillColour(f.node).hsvHue());
    }
    ASSERT_GE(hues.size(), 2u) << "the demo's graph shows the program and libc";
    std::vector<int> one;
    for (const auto &[module, h] : hues) {
        EXPECT_EQ(h.size(), 1u) << module << " has functions of several hues";
        one.push_back(*h.begin());
    }
    for (size_t i = 0; i < one.size(); ++i)
        for (size_t j = i + 1; j < one.size(); ++j) {
            int d = std::abs(one[i] - one[j]);
            EXPECT_GE(std::min(d, 360 - d), 30) << "two modules' hues are near alike";
        }
}

// A 150-deep recursion: "Collapse recursion" draws it as one frame per
// function, with the same width (every sample still counted once).
TEST(GuiFlameDeep, CollapseRecursionDrawsARecursionAsOneFrame) {
    TempDir dir;
    std::string file = dir.file("recursive.cpcprof");
    write_deep_profile(file, 150, 150, true);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    FlameCanvas *canvas = w.flameGraph()->canvas();
    ASSERT_TRUE(wait_for([&] { return !canvas->layout().frames.empty(); }));
    const uint32_t deep = canvas->layout().rows;
    ASSERT_GT(deep, 100u);
    auto *box = w.flameGraph()->findChild<QCheckBox *>("flameCollapse");
    ASSERT_NE(box, nullptr);
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(5, box->height() / 2));
    ASSERT_TRUE(box->isChecked());
    EXPECT_LE(canvas->layout().rows, 5u) << "a recursion of one function is one row";
    double widest = 0;
    for (const FlameFrame &f : canvas->layout().frames)
        widest = std::max(widest, f.width);
    EXPECT_NEAR(widest, canvas->width(), 1.0) << "the root still spans every sample";
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(5, box->height() / 2));
    EXPECT_EQ(canvas->layout().rows, deep);
}

// The Top-down page's "Collapse recursion": the 150-deep recursion is one
// node holding every sample, and back; while comparing it is off (the
// comparison matches the paths as recorded) and says why.
TEST(GuiFlameDeep, TopDownCollapsesARecursionToOneNode) {
    TempDir dir;
    std::string file = dir.file("recursive.cpcprof");
    write_deep_profile(file, 150, 150, true);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::TopDownTab);
    auto *page = qobject_cast<gui::TreePage *>(w.tabs()->widget(MainWindow::TopDownTab));
    ASSERT_NE(page, nullptr);
    ASSERT_TRUE(open_and_wait(w, file));
    const gui::CostTree &tree = page->model()->tree();
    ASSERT_TRUE(tree.tree);
    const size_t deep = tree.size();
    ASSERT_GT(deep, 150u) << "one node per level";
    QCheckBox *box = page->collapseBox();
    ASSERT_NE(box, nullptr);
    ASSERT_TRUE(box->isEnabled());
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(5, box->height() / 2));
    ASSERT_TRUE(box->isChecked());
    const gui::CostTree &collapsed = page->model()->tree();
    ASSERT_EQ(collapsed.child_count(0), 1u);
    const uint32_t root = collapsed.child(0, 0);
    EXPECT_EQ(collapsed.name(root), "recurse");
    EXPECT_EQ(collapsed.child_count(root), 0u) << "the recursion is one node";
    EXPECT_EQ(collapsed.node(root).total.samples, 150u);
    EXPECT_EQ(collapsed.node(root).self.samples, 150u);
    EXPECT_EQ(page->view()->model()->rowCount(), 1);
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(5, box->height() / 2));
    EXPECT_EQ(page->model()->tree().size(), deep);

    // While comparing: the tree as recorded, the box off and saying why.
    QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(5, box->height() / 2));
    ASSERT_TRUE(box->isChecked());
    w.compareWith(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.flameGraph()->canvas()->diff() != nullptr; }));
    ASSERT_TRUE(wait_for([&] { return !box->isEnabled(); }));
    EXPECT_EQ(page->model()->tree().size(), deep);
    EXPECT_TRUE(box->toolTip().contains("while comparing")) << box->toolTip().toStdString();
}

// A 150-deep profile: it opens with the root in view, and zooming 40
// levels up (a breadcrumb of 41 names) leaves the window's size alone.
TEST(GuiFlameDeep, ZoomKeepsTheWindowsSizeAndTheRootInView) {
    TempDir dir;
    std::string file = dir.file("deep.cpcprof");
    write_deep_profile(file, 150, 150, false);
    MainWindow w;
    w.resize(1200, 800);
    w.show();
    w.tabs()->setCurrentIndex(MainWindow::FlameTab);
    w.openFile(QString::fromStdString(file));
    ASSERT_TRUE(wait_for([&] { return w.profile() != nullptr; }));
    FlameCanvas *canvas = w.flameGraph()->canvas();
    ASSERT_TRUE(wait_for([&] { return !canvas->layout().frames.empty(); }));
    auto *scroll = w.flameGraph()->findChild<QScrollArea *>();
    ASSERT_NE(scroll, nullptr);
    auto root_in_view = [&] {
        for (const FlameFrame &f : canvas->layout().frames)
            if (f.row == 0) {
                QRect r = canvas->frameRect(f).toRect();
                QPoint top = canvas->mapTo(scroll->viewport(), r.topLeft());
                return scroll->viewport()->rect().contains(top) &&
                       scroll->viewport()->rect().contains(top + QPoint(0, r.height() - 1));
            }
        return false;
    };
    ASSERT_GT(canvas->height(), scroll->viewport()->height()) << "taller than the page";
    EXPECT_TRUE(wait_for(root_in_view, 5000)) << "opened without the root in view";
    const QSize before = w.size();

    const FlameFrame *target = nullptr;
    for (const FlameFrame &f : canvas->layout().frames)
        if (f.row == 40)
            target = &f;
    ASSERT_NE(target, nullptr);
    uint32_t node = target->node;
    canvas->zoomTo(node);
    ASSERT_EQ(canvas->zoom(), node);
    EXPECT_EQ(w.flameGraph()->breadcrumb().count(" > "), 41)
        << w.flameGraph()->breadcrumb().toStdString();
    wait_for([] { return false; }, 300); // let the layouts settle
    EXPECT_EQ(w.size(), before) << "the window resized itself to " << w.width() << "x"
                                << w.height();
    EXPECT_LE(w.minimumSizeHint().width(), before.width());
    EXPECT_TRUE(wait_for(root_in_view, 5000)) << "zoomed without the zoomed root in view";
    QTest::keyClick(canvas, Qt::Key_Escape);
    EXPECT_EQ(canvas->zoom(), 0u);
    EXPECT_EQ(w.size(), before);

    // The keyboard's selection stays in view, 120 frames up the stack.
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_Up);
    for (int i = 0; i < 120; ++i)
        QTest::keyClick(canvas, Qt::Key_Up);
    const FlameFrame *sel = nullptr;
    for (const FlameFrame &f : canvas->layout().frames)
        if (f.node == canvas->selected())
            sel = &f;
    ASSERT_NE(sel, nullptr);
    EXPECT_EQ(sel->row, 120u);
    QRect r = canvas->frameRect(*sel).toRect();
    QPoint at = canvas->mapTo(scroll->viewport(), r.center());
    EXPECT_TRUE(scroll->viewport()->rect().contains(at)) << "the selected frame is off the page";
}

} // namespace
} // namespace cpcprof::test
