// MainWindow: the filter stack.  Each change re-makes the shown profile
// from the loaded one and every step (filter_profile) in the thread pool,
// with a copy of the steps; a newer change drops the result of an older
// one (JobTracker) and asks it to stop.
#include "app/main_window.h"

#include "app/filter_stack_bar.h"
#include "app/flame_graph.h"
#include "app/summary_page.h"
#include "app/timeline_page.h"

#include <QElapsedTimer>
#include <QStatusBar>

namespace cpcprof::gui {

namespace {

struct FilterResult {
    ProfilePtr profile;
    std::string error;
    qint64 ms = 0;
};

} // namespace

void MainWindow::showPages(const ProfilePtr &profile) {
    summary_->setProfile(profile);
    flame_->setProfile(profile);
    for (Page *p : {&pages_.top_down, &pages_.bottom_up, &pages_.caller_callee, &pages_.hotspots})
        p->setProfile(profile);
    setEvent(event_);
}

void MainWindow::pushFilter(const FilterStep &step) {
    if (!loaded_)
        return;
    steps_.push_back(step);
    applyFilters();
}

void MainWindow::backToFilter(size_t depth) {
    if (!loaded_ || depth >= steps_.size())
        return;
    steps_.resize(depth);
    applyFilters();
}

void MainWindow::applyFilters() {
    timeline_->setSteps(steps_);
    if (filter_cancel_)
        *filter_cancel_ = true;
    if (steps_.empty()) {
        // Back to everything: the loaded profile as it is.
        filter_jobs_.cancel();
        filtering_ = false;
        filter_bar_->setBusy(false);
        profile_ = loaded_;
        filter_bar_->setSteps(steps_, loaded_->query->samples_kept(),
                              loaded_->query->samples_kept());
        showPages(profile_);
        emit filtersApplied();
        return;
    }
    filter_cancel_ = std::make_shared<std::atomic<bool>>(false);
    filtering_ = true;
    filter_bar_->setSteps(steps_, 0, loaded_->query->samples_kept());
    filter_bar_->setBusy(true);
    filter_jobs_.run(
        [loaded = loaded_, steps = steps_, cancel = filter_cancel_] {
            QElapsedTimer clock;
            clock.start();
            FilterResult r;
            r.profile = filter_profile(loaded, steps, *cancel, &r.error);
            r.ms = clock.elapsed();
            return r;
        },
        [this](FilterResult r) {
            filtering_ = false;
            filter_bar_->setBusy(false);
            if (!r.profile) {
                statusBar()->showMessage(
                    tr("Filter failed: %1").arg(QString::fromStdString(r.error)), 10000);
                steps_.pop_back();
                applyFilters();
                return;
            }
            profile_ = r.profile;
            const uint64_t shown = profile_->query->samples_kept();
            const uint64_t all = loaded_->query->samples_kept();
            filter_bar_->setSteps(steps_, shown, all);
            showPages(profile_);
            statusBar()->showMessage(
                tr("%1 of %2 samples shown, filtered in %3 ms").arg(shown).arg(all).arg(r.ms),
                5000);
            emit filtersApplied();
        });
}

} // namespace cpcprof::gui
