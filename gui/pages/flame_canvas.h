// SPDX-License-Identifier: MIT
// The flame graph itself: a widget that paints a CallTree (flame_layout.h)
// for the chosen event, zooms into the frame clicked (Esc zooms back out
// step by step), highlights search matches, explains a frame in its
// tooltip, offers "Show in ..." in its context menu and exports what it
// shows to SVG and PNG.  Top-down trees are drawn as a flame (roots at the
// bottom), bottom-up ones as an icicle (innermost functions at the top).
#pragma once

#include "gui/model/diff_data.h"
#include "gui/model/flame_layout.h"
#include "gui/model/profile_data.h"
#include "gui/model/search.h"

#include <QBrush>
#include <QHash>
#include <QWidget>

#include <memory>
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

    const ProfileData *profile() const { return profile_.get(); }
    const analysis::CallTree *tree() const;
    const FlameLayout &layout() const { return layout_; }
    int rowHeight() const;
    QRectF frameRect(const FlameFrame &f) const;
    // The frame under pos, or nullptr.
    const FlameFrame *frameAt(QPointF pos) const;
    // The colour a node is filled with now (module, inline, search).
    QColor fillColour(uint32_t node) const;

    bool exportSvg(const QString &path, QString *error) const;
    bool exportPng(const QString &path, QString *error) const;

  signals:
    void zoomChanged(uint32_t node);
    void showFunction(uint32_t function, cpcprof::gui::FunctionView view);
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
    void paintGraph(QPainter &p) const;
    const QBrush &brush(const QColor &c) const;

    ProfilePtr profile_;
    int event_ = 0;
    bool inverted_ = false;
    uint32_t zoom_ = 0;
    std::vector<uint32_t> history_;
    std::shared_ptr<const SearchResult> search_;
    DiffPtr diff_;
    double largest_change_ = 0; // of the frames laid out
    FlameLayout layout_;
    std::vector<QColor> module_colour_; // per function
    mutable QHash<QRgb, QBrush> brushes_;
};

} // namespace cpcprof::gui
