// SPDX-License-Identifier: MIT
// CostModel's delta columns, shown while comparing with a base profile.
#include "gui/itemmodels/cost_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <cmath>
#include <limits>

namespace cpcprof::gui {

namespace {

// What a row without a figure sorts as: below every change, down or up.
constexpr double kNoValue = -std::numeric_limits<double>::infinity();

QString signed_points(double p) {
    if (std::fabs(p) < 0.005)
        return QStringLiteral("0.00");
    return (p > 0 ? QStringLiteral("+") : QString()) + QString::number(p, 'f', 2);
}

QString signed_count(double c) {
    if (c == 0)
        return QStringLiteral("0");
    return (c > 0 ? QStringLiteral("+") : QString()) + QLocale().toString(c, 'f', 0);
}

QString side_text(const DiffData &d, const SideValues &v, bool base_side, const DeltaColumn &col) {
    const uint64_t *values = col.self ? v.self : v.total;
    if (!values)
        return QObject::tr("not there");
    QString s = QLocale().toString(qulonglong(values[col.common]));
    if (auto share = d.share(v, base_side, col.common, col.self))
        s += QStringLiteral(" (%1%)").arg(*share * 100, 0, 'f', 2);
    return s;
}

} // namespace

void CostModel::setDiff(DiffPtr diff) {
    if (diff && diff->now != profile_)
        return; // the result of a comparison with a profile no longer shown
    if (!diff && !diff_)
        return;
    beginResetModel();
    diff_ = std::move(diff);
    deltas_ = diff_ ? delta_columns(*diff_) : std::vector<DeltaColumn>{};
    arrangeBySort();
    endResetModel();
}

int CostModel::deltaColumn(int event, bool self, bool share) const {
    for (size_t i = 0; i < deltas_.size(); ++i)
        if (deltas_[i].event == event && deltas_[i].self == self && deltas_[i].share == share)
            return firstDeltaColumn() + int(i);
    return -1;
}

QVariant CostModel::deltaHeader(const DeltaColumn &col, int role) const {
    if (role == Qt::DisplayRole)
        return QString::fromStdString(col.header);
    QString what = col.self ? tr("self") : tr("total");
    return col.share ? tr("Change of the %1 share against the base, in percentage points "
                          "(as cpcprof diff)")
                           .arg(what)
                     : tr("Change of the %1 count against the base (new - base)").arg(what);
}

std::vector<double> CostModel::deltaSortValues(const DeltaColumn &col) const {
    std::vector<double> v(keyCount(), kNoValue);
    if (!diff_)
        return v;
    for (size_t k = 0; k < v.size(); ++k)
        v[k] = delta_value(*diff_, col, deltaOf(quint64(k))).value_or(kNoValue);
    return v;
}

QVariant CostModel::deltaData(const QModelIndex &index, const DeltaColumn &col, int role) const {
    if (!diff_)
        return {};
    DeltaInput in = deltaOf(keyOf(index));
    if (!in.now.self && !in.base.self)
        return {}; // no figures on either side: a row the comparison does not cover
    std::optional<double> v = delta_value(*diff_, col, in);
    switch (role) {
    case Qt::DisplayRole:
        if (!v)
            return {};
        return col.share ? signed_points(*v) : signed_count(*v);
    case SortRole:
        return v.value_or(kNoValue);
    case Qt::ForegroundRole:
        if (!v || (col.share && std::fabs(*v) < 0.005) || *v == 0)
            return {};
        return changeForeground(*v, diff_->test(in, col.common, col.self));
    case Qt::ToolTipRole: {
        QString tip =
            tr("%1\nbase: %2\nnew: %3")
                .arg(QString::fromStdString(col.header), side_text(*diff_, in.base, true, col),
                     side_text(*diff_, in.now, false, col));
        if (auto t = diff_->test(in, col.common, col.self))
            tip += "\n" + noiseText(*t, diff_->confidence);
        return tip;
    }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant changeForeground(double change, const std::optional<analysis::ShareTest> &test) {
    if (change == 0)
        return {};
    if (!test || !test->significant)
        return QBrush(QColor(120, 120, 120));
    return QBrush(change > 0 ? QColor(200, 0, 0) : QColor(0, 60, 210));
}

QString noiseText(const analysis::ShareTest &t, double confidence) {
    auto pp = [](double share) {
        return (share > 0 ? QStringLiteral("+") : QString()) + QString::number(share * 100, 'f', 2);
    };
    return (t.significant ? QObject::tr("beyond noise at %1 %: %2 .. %3 pp")
                          : QObject::tr("within noise at %1 %: %2 .. %3 pp"))
        .arg(confidence * 100, 0, 'g', 3)
        .arg(pp(t.low), pp(t.high));
}

} // namespace cpcprof::gui
