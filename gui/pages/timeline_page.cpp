// SPDX-License-Identifier: MIT
#include "gui/pages/timeline_page.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace cpcprof::gui {

TimelinePage::TimelinePage(QWidget *parent)
    : QWidget(parent), view_(new TimelineView), selection_(new QLabel),
      filter_in_(new QPushButton(tr("Filter in on selection"))),
      exclude_(new QPushButton(tr("Exclude thread"))),
      only_process_(new QPushButton(tr("Only this process"))),
      zoom_in_(new QPushButton(tr("Zoom to selection"))),
      zoom_out_(new QPushButton(tr("Zoom out"))) {
    zoom_in_->setObjectName("zoomIn");
    zoom_in_->setToolTip(tr("Show only the selected time range across the timeline (the other "
                            "pages keep their samples: Filter in narrows those)"));
    zoom_out_->setObjectName("zoomOut");
    zoom_out_->setToolTip(tr("Back to the time shown before the last zoom"));
    filter_in_->setObjectName("filterIn");
    filter_in_->setToolTip(
        tr("Show only the samples in the time range, threads and processors selected"));
    exclude_->setObjectName("excludeThread");
    exclude_->setToolTip(tr("Leave the selected threads' samples out"));
    only_process_->setObjectName("onlyProcess");
    only_process_->setToolTip(tr("Show only the samples of the selected thread's process"));
    selection_->setObjectName("timelineSelection");
    // Wraps rather than widening the window.
    selection_->setWordWrap(true);
    selection_->setMinimumWidth(120);
    selection_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *actions = new QHBoxLayout;
    for (QPushButton *b : {filter_in_, exclude_, only_process_, zoom_in_, zoom_out_})
        actions->addWidget(b);
    actions->addWidget(selection_, 1);
    auto *scroll = new QScrollArea;
    scroll->setWidget(view_);
    scroll->setWidgetResizable(true);
    scroll->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(actions);
    layout->addWidget(scroll, 1);
    connect(filter_in_, &QPushButton::clicked, this, &TimelinePage::filterIn);
    connect(exclude_, &QPushButton::clicked, this, &TimelinePage::excludeThreads);
    connect(only_process_, &QPushButton::clicked, this, &TimelinePage::onlyProcess);
    connect(view_, &TimelineView::filterInRequested, this, &TimelinePage::filterIn);
    connect(view_, &TimelineView::excludeThreadsRequested, this, &TimelinePage::excludeThreads);
    connect(view_, &TimelineView::onlyProcessRequested, this, &TimelinePage::onlyProcess);
    connect(zoom_in_, &QPushButton::clicked, view_, &TimelineView::zoomToSelection);
    connect(zoom_out_, &QPushButton::clicked, view_, &TimelineView::zoomOut);
    connect(view_, &TimelineView::selectionChanged, this, &TimelinePage::selectionChanged);
    connect(view_, &TimelineView::windowChanged, this, &TimelinePage::selectionChanged);
    selectionChanged();
}

void TimelinePage::setProfile(ProfilePtr loaded) {
    view_->setProfile(std::move(loaded));
    selectionChanged();
}

void TimelinePage::setEvent(int event) {
    view_->setEvent(event);
    selectionChanged(); // the hint says what pale bars are
}

void TimelinePage::setSteps(const std::vector<FilterStep> &steps) {
    view_->setSteps(steps);
}

void TimelinePage::selectionChanged() {
    auto range = view_->selectedRange();
    auto threads = view_->selectedThreads();
    auto cpus = view_->selectedCpus();
    filter_in_->setEnabled(range || !threads.empty() || !cpus.empty());
    exclude_->setEnabled(!threads.empty());
    only_process_->setEnabled(!threads.empty());
    zoom_in_->setEnabled(range && range->to_ns - range->from_ns >= 1000);
    zoom_out_->setEnabled(view_->zoomed());
    FilterStep s;
    s.time = range;
    s.only = threads;
    s.cpus = cpus;
    QString text = range || !threads.empty() || !cpus.empty()
                       ? tr("Selected: %1").arg(QString::fromStdString(describe(s)))
                       : tr("Drag across the rows to select a time range; click a row to "
                            "select its thread or processor (Ctrl: add)");
    if (view_->showsOffCpu())
        text += tr(". Pale: time off the CPU");
    if (view_->zoomed()) {
        FilterStep shown;
        shown.time = view_->window();
        text = tr("Showing %1 of %2 s. ")
                   .arg(QString::fromStdString(describe(shown)))
                   .arg(double(view_->timeline().duration_ns) / 1e9, 0, 'f', 3) +
               text;
    }
    selection_->setText(text);
}

void TimelinePage::filterIn() {
    FilterStep s;
    s.time = view_->selectedRange();
    s.only = view_->selectedThreads();
    s.cpus = view_->selectedCpus();
    if (!s.time && s.only.empty() && s.cpus.empty())
        return;
    view_->clearSelection();
    emit filterRequested(s);
}

void TimelinePage::excludeThreads() {
    FilterStep s;
    s.without = view_->selectedThreads();
    if (s.without.empty())
        return;
    view_->clearSelection();
    emit filterRequested(s);
}

void TimelinePage::onlyProcess() {
    auto threads = view_->selectedThreads();
    if (threads.empty())
        return;
    FilterStep s;
    s.pid = threads.front().pid;
    view_->clearSelection();
    emit filterRequested(s);
}

} // namespace cpcprof::gui
