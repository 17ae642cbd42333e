// SPDX-License-Identifier: MIT
#include "gui/app/profile_loader.h"

#include <QThreadPool>

#include <string>

namespace cpcprof::gui {

namespace {

struct LoadResult {
    ProfilePtr profile;
    std::string error;
};

// Profiles (and those filtered from them) are freed in the global pool,
// not where their last reference goes, often the GUI thread: ~100 ms for
// a 1 M-sample profile.  QCoreApplication's destructor waits for the pool.
void dispose_in_pool(ProfileData *p) {
    QThreadPool::globalInstance()->start([p] { delete p; });
}

} // namespace

ProfileLoader::ProfileLoader(QObject *parent, QThreadPool *pool)
    : QObject(parent), jobs_(this, pool) {}

ProfileLoader::~ProfileLoader() {
    // A job still running finishes on its own; its result is dropped.
    if (cancel_)
        *cancel_ = true;
}

void ProfileLoader::load(const QString &path) {
    if (cancel_)
        *cancel_ = true;
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    path_ = path;
    busy_ = true;
    clock_.start();
    emit started(path);
    jobs_.run(
        [path = path.toStdString(), cancel = cancel_]() {
            LoadResult r;
            r.profile = load_profile(path, *cancel, &r.error, dispose_in_pool);
            return r;
        },
        [this](LoadResult r) {
            busy_ = false;
            if (r.profile)
                emit loaded(r.profile, clock_.elapsed());
            else if (r.error == "cancelled")
                emit cancelled(path_);
            else
                emit failed(path_, QString::fromStdString(r.error));
        });
}

void ProfileLoader::cancel() {
    if (!busy_)
        return;
    *cancel_ = true;
    jobs_.cancel();
    busy_ = false;
    emit cancelled(path_);
}

} // namespace cpcprof::gui
