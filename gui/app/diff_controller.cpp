// SPDX-License-Identifier: MIT
#include "gui/app/diff_controller.h"

#include <QThreadPool>

#include <string>

namespace cpcprof::gui {

namespace {

struct CompareResult {
    DiffPtr diff;
    std::string error;
    qint64 ms = 0;
};

} // namespace

DiffController::DiffController(QObject *parent)
    : QObject(parent), pool_(new QThreadPool(this)), loader_(new ProfileLoader(this, pool_)),
      jobs_(this, pool_) {
    // One thread of its own: the base's load and the comparison follow each
    // other, and the global pool stays free for the profile shown and for
    // painting (JobTracker).
    pool_->setMaxThreadCount(1);
    connect(loader_, &ProfileLoader::loaded, this, [this](ProfilePtr base, qint64 ms) {
        base_ = std::move(base);
        base_load_ms_ = ms;
        start();
    });
    connect(loader_, &ProfileLoader::failed, this, [this](const QString &, const QString &error) {
        base_path_.clear();
        emit failed(error);
    });
}

DiffController::~DiffController() {
    loader_->cancel();
}

void DiffController::setBase(const QString &path) {
    clock_.start();
    base_path_ = path;
    base_.reset();
    jobs_.cancel();
    if (diff_) {
        diff_.reset();
        emit compared(nullptr, 0);
    }
    loader_->load(path);
}

void DiffController::clearBase() {
    loader_->cancel();
    jobs_.cancel();
    base_path_.clear();
    base_.reset();
    diff_.reset();
    emit compared(nullptr, 0);
}

void DiffController::setProfile(ProfilePtr now) {
    now_ = std::move(now);
    jobs_.cancel();
    diff_.reset();
    if (!loader_->busy())
        clock_.start();
    start();
}

void DiffController::start() {
    if (!base_ || !now_)
        return;
    jobs_.run(
        [base = base_, now = now_] {
            QElapsedTimer clock;
            clock.start();
            CompareResult r;
            r.diff = compare_profiles(base, now, &r.error);
            r.ms = clock.elapsed();
            return r;
        },
        [this](CompareResult r) {
            if (!r.diff) {
                base_path_.clear();
                base_.reset();
                emit failed(QString::fromStdString(r.error));
                return;
            }
            diff_ = std::move(r.diff);
            compare_ms_ = r.ms;
            emit compared(diff_, clock_.elapsed());
        });
}

} // namespace cpcprof::gui
