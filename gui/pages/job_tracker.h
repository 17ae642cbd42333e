// SPDX-License-Identifier: MIT
// Work off the GUI thread: run(work, done) hands work (which owns copies
// of its input) to the thread pool and calls done with its result back on
// the GUI thread, in the context of owner, unless a newer job was started
// in the meantime (or cancel() was called): stale results are dropped.
// The job id lives on the GUI thread only; nothing is shared with the
// worker but what work captured, so no mutex is needed.  A job that is
// already finished when run() attaches done (Qt 6.4 runs it at once) has
// done called before run() returns: callers must not rely on the order.
#pragma once

#include <QFuture>
#include <QObject>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace cpcprof::gui {

class JobTracker {
  public:
    // pool: where the work runs; nullptr: the global pool.  Work that
    // would hold the global pool's threads long should have a pool of its
    // own: Qt's raster paint engine waits for a global pool thread when
    // it fills large areas, so the window would not repaint meanwhile.
    explicit JobTracker(QObject *owner, QThreadPool *pool = nullptr) : owner_(owner), pool_(pool) {}

    template <typename Work, typename Done> void run(Work &&work, Done &&done) {
        uint64_t id = ++job_;
        ++running_;
        QPointer<QObject> alive(owner_);
        using Result = std::invoke_result_t<std::decay_t<Work>>;
        (pool_ ? QtConcurrent::run(pool_, std::forward<Work>(work))
               : QtConcurrent::run(std::forward<Work>(work)))
            .then(owner_,
                  [this, id, alive, done = std::forward<Done>(done)](Result result) mutable {
                      if (!alive)
                          return;
                      --running_;
                      if (id == job_)
                          done(std::move(result));
                  });
    }
    // Results of jobs started so far will be dropped.
    void cancel() { ++job_; }
    // Jobs whose result has not come back yet (dropped ones included).
    int running() const { return running_; }

  private:
    QObject *owner_;
    QThreadPool *pool_;
    uint64_t job_ = 0;
    int running_ = 0;
};

} // namespace cpcprof::gui
