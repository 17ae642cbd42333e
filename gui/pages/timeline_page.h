// SPDX-License-Identifier: MIT
// The Timeline page: the timeline (timeline_view.h) of the loaded profile
// under a row of actions on what is selected in it -- "Filter in on
// selection" (the time range dragged and the threads clicked), "Exclude
// thread", "Only this process" -- each of which asks for a filter step
// (filterRequested); the window applies it to every view -- and "Zoom to
// selection" / "Zoom out", which change only the time the timeline shows.
#pragma once

#include "gui/pages/timeline_view.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace cpcprof::gui {

class TimelinePage : public QWidget {
    Q_OBJECT
  public:
    explicit TimelinePage(QWidget *parent = nullptr);

    void setProfile(ProfilePtr loaded);
    void setEvent(int event);
    void setSteps(const std::vector<FilterStep> &steps);
    TimelineView *view() const { return view_; }
    QPushButton *filterInButton() const { return filter_in_; }
    QPushButton *excludeButton() const { return exclude_; }
    QPushButton *onlyProcessButton() const { return only_process_; }
    QPushButton *zoomInButton() const { return zoom_in_; }
    QPushButton *zoomOutButton() const { return zoom_out_; }

  public slots:
    void filterIn();
    void excludeThreads();
    void onlyProcess();

  signals:
    void filterRequested(cpcprof::gui::FilterStep step);

  private:
    void selectionChanged();

    TimelineView *view_;
    QLabel *selection_;
    QPushButton *filter_in_, *exclude_, *only_process_, *zoom_in_, *zoom_out_;
};

} // namespace cpcprof::gui
