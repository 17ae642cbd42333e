// SPDX-License-Identifier: MIT
#include "gui/itemmodels/diff_table_model.h"

#include "gui/itemmodels/cost_model.h" // SortRole

#include <QBrush>
#include <QLocale>

#include <cmath>
#include <limits>

namespace cpcprof::gui {

namespace {

constexpr double kNoValue = -std::numeric_limits<double>::infinity();

QString status_text(const analysis::FunctionDiff &f) {
    if (!f.base.present)
        return QObject::tr("only in new");
    if (!f.now.present)
        return QObject::tr("only in base");
    return QObject::tr("both");
}

} // namespace

DiffTableModel::DiffTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void DiffTableModel::setDiff(DiffPtr diff, size_t event) {
    beginResetModel();
    diff_ = std::move(diff);
    rows_.clear();
    if (diff_ && event < diff_->comparison.events.size()) {
        rows_ = diff_->order[event]; // cpcprof diff's order
    }
    endResetModel();
}

int DiffTableModel::rowNamed(const std::string &name, const std::string &module) const {
    for (size_t r = 0; r < rows_.size(); ++r) {
        const analysis::FunctionDiff &f = diff_->comparison.functions[rows_[r]];
        if (f.name == name && (module.empty() || f.module == module))
            return int(r);
    }
    return -1;
}

int DiffTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int DiffTableModel::columnCount(const QModelIndex &parent) const {
    if (parent.isValid() || !diff_)
        return parent.isValid() ? 0 : kKeyColumns;
    return kKeyColumns + int(diff_->comparison.events.size()) * Figures;
}

std::optional<double> DiffTableModel::figure(const analysis::FunctionDiff &f, size_t e,
                                             Figure fig) const {
    DeltaInput in = diff_->row_delta(f);
    switch (fig) {
    case BaseSelf:
    case BaseTotal:
        return diff_->share(in.base, true, e, fig == BaseSelf);
    case NewSelf:
    case NewTotal:
        return diff_->share(in.now, false, e, fig == NewSelf);
    case SelfPoints:
    case TotalPoints:
        return diff_->points(in, e, fig == SelfPoints);
    case SelfCount:
    case TotalCount:
        return diff_->count_change(in, e, fig == SelfCount);
    case Figures:
        break;
    }
    return std::nullopt;
}

QVariant DiffTableModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || !diff_ || size_t(index.row()) >= rows_.size())
        return {};
    const analysis::FunctionDiff &f = diff_->comparison.functions[rows_[size_t(index.row())]];
    int col = index.column();
    if (col < kKeyColumns) {
        QString text = col == 0   ? QString::fromStdString(f.name)
                       : col == 1 ? QString::fromStdString(f.module.empty() ? "?" : f.module)
                                  : status_text(f);
        if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole)
            return text;
        return {};
    }
    size_t e = size_t(col - kKeyColumns) / Figures;
    auto fig = Figure((col - kKeyColumns) % Figures);
    std::optional<double> v = figure(f, e, fig);
    bool change = fig == SelfPoints || fig == TotalPoints || fig == SelfCount || fig == TotalCount;
    switch (role) {
    case Qt::DisplayRole:
        if (!v)
            return QStringLiteral("-");
        if (fig == SelfCount || fig == TotalCount)
            return (*v > 0 ? QStringLiteral("+") : QString()) + QLocale().toString(*v, 'f', 0);
        if (change)
            return std::fabs(*v) < 0.005
                       ? QStringLiteral("0.00")
                       : (*v > 0 ? QStringLiteral("+") : QString()) + QString::number(*v, 'f', 2);
        return QString::number(*v * 100, 'f', 2) + QLatin1Char('%');
    case SortRole:
        return v.value_or(kNoValue);
    case Qt::ForegroundRole: {
        if (!change || !v || std::fabs(*v) < 0.005)
            return {};
        bool self = fig == SelfPoints || fig == SelfCount;
        return changeForeground(*v, diff_->test(diff_->row_delta(f), e, self));
    }
    case Qt::ToolTipRole: {
        if (!change)
            return {};
        bool self = fig == SelfPoints || fig == SelfCount;
        auto t = diff_->test(diff_->row_delta(f), e, self);
        return t ? noiseText(*t, diff_->confidence) : QVariant();
    }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant DiffTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole) ||
        section < 0 || section >= columnCount())
        return {};
    if (section < kKeyColumns) {
        static const char *const names[] = {"Function", "Module", "Status"};
        return tr(names[section]);
    }
    size_t e = size_t(section - kKeyColumns) / Figures;
    auto fig = Figure((section - kKeyColumns) % Figures);
    static const char *const heads[] = {"base self",  "new self",   "\u0394self pp",
                                        "base total", "new total",  "\u0394total pp",
                                        "\u0394self", "\u0394total"};
    static const char *const tips[] = {"Self share of the event in BASE",
                                       "Self share of the event in NEW",
                                       "Change of the self share, percentage points (new - base)",
                                       "Total share of the event in BASE",
                                       "Total share of the event in NEW",
                                       "Change of the total share, percentage points (new - base)",
                                       "Change of the self count (new - base)",
                                       "Change of the total count (new - base)"};
    QString event = QString::fromStdString(diff_->comparison.events[e]);
    if (role == Qt::DisplayRole)
        return QString::fromUtf8(heads[fig]) + ":" + event;
    return tr(tips[fig]) + " (" + event + ")";
}

} // namespace cpcprof::gui
