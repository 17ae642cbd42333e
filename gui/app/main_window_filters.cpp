// SPDX-License-Identifier: MIT
// MainWindow: the filter stack.  A new step narrows the profile of the
// steps before it (or, while that is not made yet, the loaded one by every
// step) with filter_profile in the thread pool, on copies; a newer change
// drops the result of an older one (JobTracker) and asks it to stop.  The
// profile of each depth is kept, so that going back is immediate.
#include "gui/app/main_window.h"

#include "gui/app/diff_controller.h"
#include "gui/pages/filter_stack_bar.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/source_page.h"
#include "gui/pages/summary_page.h"
#include "gui/pages/timeline_page.h"

#include <QElapsedTimer>
#include <QStatusBar>

#include <algorithm>

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
    source_->setProfile(profile);
    setEvent(event_);
    diff_->setProfile(profile); // a comparison follows the filters
}

void MainWindow::pushFilter(const FilterStep &step) {
    if (!loaded_)
        return;
    steps_.push_back(step);
    applyFilters();
}

void MainWindow::filterByFunction(uint32_t fn, bool keep) {
    if (!profile_ || fn >= profile_->query->functions().size())
        return;
    FilterStep step;
    (keep ? step.through : step.not_through).push_back(profile_->query->functions()[fn].name);
    pushFilter(step);
}

void MainWindow::backToFilter(size_t depth) {
    if (!loaded_ || depth >= steps_.size())
        return;
    steps_.resize(depth);
    if (depth > 0 && depth <= narrowed_.size() && narrowed_[depth - 1]) {
        // Made before: shown at once.
        filter_jobs_.cancel();
        if (filter_cancel_)
            *filter_cancel_ = true;
        filtering_ = false;
        filter_bar_->setBusy(false);
        narrowed_.resize(depth);
        timeline_->setSteps(steps_);
        profile_ = narrowed_.back();
        filter_bar_->setSteps(steps_, profile_->query->samples_kept(),
                              loaded_->query->samples_kept());
        showPages(profile_);
        emit filtersApplied();
        return;
    }
    applyFilters();
}

void MainWindow::applyFilters() {
    timeline_->setSteps(steps_);
    if (filter_cancel_)
        *filter_cancel_ = true;
    narrowed_.resize(std::min(narrowed_.size(), steps_.size()));
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
    // The profile of the steps before the last, when made: fewer samples.
    ProfilePtr from = loaded_;
    std::vector<FilterStep> steps = steps_;
    const size_t before = steps_.size() - 1;
    if (before > 0 && before <= narrowed_.size() && narrowed_[before - 1]) {
        from = narrowed_[before - 1];
        steps = {steps_.back()};
    }
    filter_jobs_.run(
        [from, steps, cancel = filter_cancel_] {
            QElapsedTimer clock;
            clock.start();
            FilterResult r;
            r.profile = filter_profile(from, steps, *cancel, &r.error);
            r.ms = clock.elapsed();
            return r;
        },
        [this](const FilterResult &r) {
            filtering_ = false;
            filter_bar_->setBusy(false);
            if (!r.profile) {
                statusBar()->showMessage(
                    tr("Filter failed: %1").arg(QString::fromStdString(r.error)), 10000);
                backToFilter(steps_.size() - 1);
                return;
            }
            profile_ = r.profile;
            narrowed_.resize(steps_.size());
            narrowed_.back() = profile_;
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
