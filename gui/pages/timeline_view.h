// SPDX-License-Identifier: MIT
// The timeline: one row per process and, below it, one per thread of it
// (model/timeline.h), each showing how the chosen event's samples spread
// over the run: one bar per pixel column, its height and strength the
// event's sum in that slice of time against the busiest slice of any
// thread, in the event's colour.  A time axis on top.
//
// Below the processes, where the profile says which processor took each
// sample, one row per processor ("CPU 1"): the samples taken on it,
// whatever their thread.
//
// Dragging across the rows selects a time range; clicking a row selects
// its thread (a process row: all its threads; a processor's row: that
// processor; Ctrl adds or removes).
// The filters in force (setSteps) are drawn: time outside them shaded,
// threads they leave out greyed.  A row's tooltip gives its samples and
// the chosen event's sum, and that of the column under the pointer.
//
// Zoom to selection shows only the time range selected, across the whole
// width (the axis and the densities of that window); Zoom out goes back
// one zoom, Show whole run to the start.  Zooming changes what is drawn,
// not which samples the other pages show (that is Filter in).
#pragma once

#include "gui/model/profile_data.h"
#include "gui/model/sample_filter.h"
#include "gui/model/timeline.h"

#include <QWidget>

#include <optional>
#include <vector>

namespace cpcprof::gui {

class TimelineView : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineView(QWidget *parent = nullptr);

    // The loaded (whole) profile: it keeps its samples.
    void setProfile(ProfilePtr profile);
    void setEvent(int event);
    void setSteps(std::vector<FilterStep> steps);

    const Timeline &timeline() const { return timeline_; }
    std::optional<TimeRange> selectedRange() const { return range_; }
    std::vector<ThreadId> selectedThreads() const { return threads_; }
    std::vector<int> selectedCpus() const { return cpus_; }
    void clearSelection();

    // The time shown across the plot: the whole run, or a zoom.
    TimeRange window() const { return window_; }
    bool zoomed() const { return !zooms_.empty(); }
    // Whether the event shown has time off the CPU in it (off-cpu,
    // wall-clock), drawn pale.
    bool showsOffCpu() const;
    // Shows the selected range (dropping the selection), if one is
    // selected and at least a microsecond long.
    void zoomToSelection();
    void zoomOut();
    void showWholeRun();

    // Geometry, for tests that act as a user: the x of time t, and the
    // vertical middle of row r.
    int xOfTime(int64_t t) const;
    int yOfRow(size_t r) const;
    // The row at y, or -1.
    int rowAt(int y) const;
    // Where the plot starts and its width in pixels.
    int plotLeft() const;
    int plotWidth() const;
    // The density columns (a few pixels each): how many, where column c
    // starts, and the densities drawn, per row and column.
    size_t bins() const;
    int binX(size_t c) const;
    // The densities are made when first needed after a change (a paint):
    // a profile loaded while another page is shown costs nothing here.
    const std::vector<std::vector<uint64_t>> &densities();

    QSize sizeHint() const override;

  signals:
    void selectionChanged();
    void windowChanged();
    // The context menu's actions, for the page to turn into filter steps.
    void filterInRequested();
    void excludeThreadsRequested();
    void onlyProcessRequested();

  protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseMoveEvent(QMouseEvent *) override;
    void mouseReleaseEvent(QMouseEvent *) override;
    void contextMenuEvent(QContextMenuEvent *) override;
    bool event(QEvent *) override;

  private:
    void rebin();
    QString tipOf(size_t r, int x);
    int64_t timeOfX(int x) const;
    bool shown(const TimelineRow &row) const;
    void selectRow(int r, bool toggle);
    void paintAxis(QPainter &p) const;
    void paintRow(QPainter &p, size_t r, uint64_t peak) const;

    ProfilePtr profile_;
    Timeline timeline_;
    int event_ = 0;
    std::vector<FilterStep> steps_;
    std::vector<std::vector<uint64_t>> density_;
    // The off-CPU part of density_ (record --off-cpu), drawn pale above
    // the time on the CPU; empty when the event has none.
    std::vector<std::vector<uint64_t>> off_density_;
    bool stale_ = true;
    std::optional<TimeRange> range_;
    TimeRange window_;
    std::vector<TimeRange> zooms_; // the windows zoomed from
    void setWindow(TimeRange w);
    std::vector<ThreadId> threads_;
    std::vector<int> cpus_;
    std::optional<int> drag_from_; // x where a press began
    bool dragging_ = false;
};

} // namespace cpcprof::gui
