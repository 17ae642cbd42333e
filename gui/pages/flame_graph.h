// SPDX-License-Identifier: MIT
// The Flame graph page: breadcrumb of the zoom (each step a link back to
// it), search box (substring or regular expression) with the share of the
// samples that have a match on their stack, the inverted (icicle, from
// the bottom-up tree) and collapse-recursion (f > f > g drawn f > g)
// switches, and the canvas (flame_canvas.h) in a scroll area, with a line
// on the frame the keyboard selected.  Searches run off the GUI thread; a
// newer one drops the result of an older one.
#pragma once

#include "gui/pages/flame_canvas.h"
#include "gui/pages/job_tracker.h"

#include <QWidget>

#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QScrollArea;

namespace cpcprof::gui {

class FlameGraph : public QWidget {
    Q_OBJECT
  public:
    explicit FlameGraph(QWidget *parent = nullptr);

    void setProfile(ProfilePtr profile);
    void setEvent(int event);
    // Colours by the change against a base (flame_canvas.h), the legend
    // above the graph saying what the colours mean; nullptr: by module.
    void setDiff(DiffPtr diff);
    QLabel *legend() const { return legend_; }
    FlameCanvas *canvas() const { return canvas_; }
    // The breadcrumb as plain text: "all > main > f".
    QString breadcrumb() const;
    // The last search's result (nullptr: none yet, or the box is empty).
    const SearchResult *search() const { return search_.get(); }
    // Share of the event's total that the search's matches have (once per
    // sample); nothing without a search or an event total of 0.
    std::optional<double> searchShare() const;
    QString searchText() const;

  public slots:
    void startSearch();

  signals:
    void searchFinished();
    void showFunction(uint32_t function, cpcprof::gui::FunctionView view);
    void filterByFunction(uint32_t function, bool keep);

  private:
    void updateBreadcrumb();
    void updateMatches();
    void showSelection(uint32_t node); // 0: how to select
    // Scrolls the root row into view (once the canvas has its new size).
    void scrollToRoot();

    FlameCanvas *canvas_;
    QScrollArea *scroll_;
    QLabel *breadcrumb_;
    QString breadcrumb_plain_;
    QLineEdit *search_box_;
    QCheckBox *regex_;
    QCheckBox *inverted_;
    QCheckBox *collapse_; // recursion
    QLabel *matches_;
    QLabel *selection_; // the frame the keyboard selected
    QLabel *legend_;    // what a comparison's colours mean
    JobTracker searches_;
    std::shared_ptr<const SearchResult> search_;
    ProfilePtr profile_;
    int event_ = 0;
};

} // namespace cpcprof::gui
