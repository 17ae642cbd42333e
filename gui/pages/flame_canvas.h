// SPDX-License-Identifier: MIT
// The flame graph itself: a widget that paints a CallTree (flame_layout.h)
// for the chosen event, zooms into the frame clicked (Esc zooms back out
// step by step), highlights search matches, explains a frame in its
// tooltip, offers "Show in ..." in its context menu and exports the
// interactive SVG or HTML page of `cpcprof flamegraph`, or a PNG picture.  The keyboard walks the
// frames: the arrows move the selected frame (outlined) to its caller, its widest callee or its
// neighbours in the row, Enter zooms into it, Esc and Backspace zoom out.
// Each module has a hue of its own, its functions shades of it.  Top-down trees are drawn as a
// flame (roots at the bottom), bottom-up ones as an icicle (innermost functions at the top).
#pragma once

#include "gui/model/diff_data.h"
#include "gui/model/flame_layout.h"
#include "gui/model/profile_data.h"
#include "gui/model/search.h"

#include <QBrush>
#include <QHash>
#include <QWidget>

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace cpcprof::gui {

// Where "Show in ..." sends a function.
enum class FunctionView { TopDown, BottomUp, CallerCallee, Source };

class FlameCanvas : public QWidget {
    Q_OBJECT
  public:
    explicit FlameCanvas(QWidget *parent = nullptr);

    void setProfile(ProfilePtr profile);
    void setEvent(int event);
    // Bottom-up (icicle) instead of top-down.  false when the profile has
    // no bottom-up tree (ProfileData::bottom_up_error says why).
    bool setInverted(bool inverted);
    bool inverted() const { return inverted_; }
    // The top-down tree with recursion collapsed (f > f > g drawn f > g;
    // CallTree::top_down's collapse_recursion), made when asked.  Not while
    // comparing (the comparison matches the tree as recorded) nor inverted.
    void setCollapseRecursion(bool on);
    bool collapseRecursion() const { return collapse_; }
    void setSearch(std::shared_ptr<const SearchResult> search);
    // Colours frames by their change against a base (flame_diff.h), BASE's
    // figures in the tooltip; nullptr (or a diff of another profile): by module.
    void setDiff(DiffPtr diff);
    const DiffData *diff() const { return diff_ && diff_->now == profile_ ? diff_.get() : nullptr; }

    // Zooms into node (0 = everything); the previous zoom is kept for
    // zoomOut().  zoomOut: false when showing everything already.
    void zoomTo(uint32_t node);
    bool zoomOut();
    uint32_t zoom() const { return zoom_; }

    // The frame the keyboard moves (0 = none: the first arrow key selects
    // the zoomed frame); select() takes frames laid out now only.
    uint32_t selected() const { return selected_; }
    void select(uint32_t node);

    const ProfileData *profile() const { return profile_.get(); }
    const analysis::CallTree *tree() const;
    const FlameLayout &layout() const { return layout_; }
    int rowHeight() const;
    QRectF frameRect(const FlameFrame &f) const;
    // The frame under pos, or nullptr.
    const FlameFrame *frameAt(QPointF pos) const;
    // The colour a node is filled with now (module, inline, search).
    QColor fillColour(uint32_t node) const;

    // The page `cpcprof flamegraph` writes for the samples shown (the
    // same frames, per-frame tooltips, click-to-zoom and search; the HTML
    // with every event), weighted by the chosen event, inverted when the
    // canvas is; written whole or not at all.
    bool exportPage(const QString &path, bool html, QString *error) const;
    // A picture of the canvas as it is.
    bool exportPng(const QString &path, QString *error) const;

  signals:
    void zoomChanged(uint32_t node);
    // The selected frame and where it is drawn (0 and an empty rect: none).
    void selectionChanged(uint32_t node, QRect rect);
    void showFunction(uint32_t function, cpcprof::gui::FunctionView view);
    // Keep only the stacks through function (keep) or hide them.
    void filterByFunction(uint32_t function, bool keep);
    // After a paint of a loaded profile (its frames, or why there are none).
    void painted();

  protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    void keyPressEvent(QKeyEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;
    bool event(QEvent *) override;

  private:
    void relayout();
    // After a switch of tree (inverted, recursion): everything, unselected.
    void showAnotherTree();
    const FlameFrame *laidOut(uint32_t node) const;
    // The frame an arrow key moves the selection to; nullptr: none there.
    const FlameFrame *neighbour(const FlameFrame &from, int key) const;
    void paintGraph(QPainter &p) const;
    const QBrush &brush(const QColor &c) const;
    const QColor &functionColour(uint32_t fn) const;

    ProfilePtr profile_;
    int event_ = 0;
    bool inverted_ = false;
    uint32_t zoom_ = 0;
    uint32_t selected_ = 0;
    bool collapse_ = false;
    std::optional<analysis::CallTree> collapsed_; // of profile_, when asked
    std::vector<uint32_t> history_;
    std::shared_ptr<const SearchResult> search_;
    DiffPtr diff_;
    double largest_change_ = 0; // of the frames laid out
    FlameLayout layout_;
    // The profile's modules (views of its functions' module paths), and
    // per function its colour, made when first drawn (invalid until then).
    std::vector<std::string_view> modules_;
    mutable std::vector<QColor> colours_;
    mutable QHash<QRgb, QBrush> brushes_;
};

} // namespace cpcprof::gui
