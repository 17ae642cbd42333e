#include "app/diff_controller.h"

#include <string>

namespace cpcprof::gui {

namespace {

struct CompareResult {
    DiffPtr diff;
    std::string error;
};

} // namespace

DiffController::DiffController(QObject *parent)
    : QObject(parent), loader_(new ProfileLoader(this)), jobs_(this) {
    connect(loader_, &ProfileLoader::loaded, this, [this](ProfilePtr base, qint64) {
        base_ = std::move(base);
        start();
    });
    connect(loader_, &ProfileLoader::failed, this, [this](const QString &, const QString &error) {
        base_path_.clear();
        emit failed(error);
    });
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
            CompareResult r;
            r.diff = compare_profiles(base, now, &r.error);
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
            emit compared(diff_, clock_.elapsed());
        });
}

} // namespace cpcprof::gui
