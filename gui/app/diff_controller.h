// SPDX-License-Identifier: MIT
// Comparing the profile shown with a base profile: the base is loaded off
// the GUI thread (its own ProfileLoader), then compare_profiles runs in
// the thread pool on shared pointers to both; the result comes back on
// the GUI thread as compared().  A new profile shown (Open, Reload) is
// compared with the same base again; a newer request drops the result of
// an older one.
#pragma once

#include "gui/app/profile_loader.h"
#include "gui/model/diff_data.h"
#include "gui/pages/job_tracker.h"

#include <QElapsedTimer>
#include <QObject>

class QThreadPool;

namespace cpcprof::gui {

class DiffController : public QObject {
    Q_OBJECT
  public:
    explicit DiffController(QObject *parent = nullptr);
    // Asks a base load under way to stop (its pool waits for it).
    ~DiffController() override;

    // Compares with the profile at path from now on (loads it now).
    void setBase(const QString &path);
    // Stops comparing: compared(nullptr) follows.
    void clearBase();
    // The profile shown changed (nullptr: none); compared again when a
    // base is set.
    void setProfile(ProfilePtr now);

    QString basePath() const { return base_path_; }
    const DiffPtr &diff() const { return diff_; }
    // Milliseconds the base took to load and the last comparison to make
    // (off the GUI thread), for the benchmark.
    qint64 baseLoadMs() const { return base_load_ms_; }
    qint64 compareMs() const { return compare_ms_; }
    bool busy() const { return loader_->busy() || jobs_.running() > 0; }

  signals:
    // A comparison of the shown profile is ready (nullptr: none any more).
    // ms: since the base or the profile was set.
    void compared(cpcprof::gui::DiffPtr diff, qint64 ms);
    // The base cannot be read ("PATH: reason") or the two cannot be
    // compared (no common event); the base is dropped.
    void failed(const QString &error);

  private:
    void start();

    QThreadPool *pool_;
    ProfileLoader *loader_;
    JobTracker jobs_;
    QString base_path_;
    ProfilePtr base_, now_;
    DiffPtr diff_;
    QElapsedTimer clock_;
    qint64 base_load_ms_ = -1, compare_ms_ = -1;
};

} // namespace cpcprof::gui
