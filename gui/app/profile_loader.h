// SPDX-License-Identifier: MIT
// Loading a profile off the GUI thread: gui::load_profile runs in the
// thread pool on a copy of the path, with a cancel flag it polls between
// steps; the result comes back on the GUI thread as a signal.  Starting a
// new load drops the result of the previous one and asks it to stop.
#pragma once

#include "gui/model/profile_data.h"
#include "gui/pages/job_tracker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace cpcprof::gui {

class ProfileLoader : public QObject {
    Q_OBJECT
  public:
    // pool: where loads run (JobTracker); nullptr: the global pool.
    explicit ProfileLoader(QObject *parent = nullptr, QThreadPool *pool = nullptr);
    ~ProfileLoader() override;

    void load(const QString &path);
    // Asks the running load to stop; cancelled() follows at once.
    void cancel();
    bool busy() const { return busy_; }

  signals:
    void started(const QString &path);
    void loaded(cpcprof::gui::ProfilePtr profile, qint64 ms);
    // error is load_profile's: "PATH: reason".
    void failed(const QString &path, const QString &error);
    void cancelled(const QString &path);

  private:
    JobTracker jobs_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    QString path_;
    QElapsedTimer clock_;
    bool busy_ = false;
};

} // namespace cpcprof::gui
