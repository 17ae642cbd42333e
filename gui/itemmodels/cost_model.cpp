// SPDX-License-Identifier: MIT
#include "gui/itemmodels/cost_model.h"

#include <QLocale>

#include <algorithm>

namespace cpcprof::gui {

using analysis::Cost;

CostModel::CostModel(QObject *parent) : QAbstractItemModel(parent) {}

void CostModel::resetProfile(ProfilePtr profile) {
    beginResetModel();
    arranged_ = false;
    profile_ = std::move(profile);
    columns_ = profile_ && profile_->query ? cost_columns(*profile_->query) : CostColumns{};
    name_rank_.clear();
    if (diff_ && diff_->now != profile_) {
        diff_.reset();
        deltas_.clear();
    }
    if (profile_ && profile_->query && size_t(event_) >= profile_->query->events().size())
        event_ = 0;
}

int CostModel::columnCount(const QModelIndex &parent) const {
    if (parent.isValid() && parent.column() > 0)
        return 0;
    return firstDeltaColumn() + int(deltas_.size());
}

int CostModel::eventColumn(int event, CostColumn::Kind kind) const {
    int c = event_column(columns_, event, kind);
    return c < 0 ? -1 : firstCostColumn() + c;
}

void CostModel::setEvent(int event) {
    // Only the name column's tooltip depends on it, and tooltips are
    // asked for when shown: no dataChanged (a proxy would re-sort on it).
    if (event >= 0 && size_t(event) < columns_.totals.size())
        event_ = event;
}

QVariant CostModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    if (section == 0)
        return tr("Function");
    if (section <= keyColumns())
        return keyHeader(section - 1);
    if (section >= firstDeltaColumn())
        return deltaHeader(deltas_[size_t(section - firstDeltaColumn())], role);
    const CostColumn &col = columns_.columns[size_t(section - firstCostColumn())];
    if (role == Qt::DisplayRole)
        return QString::fromStdString(col.label);
    const QString name = QString::fromStdString(col.header) + "\n";
    switch (col.kind) {
    case CostColumn::Kind::Self:
        return name + tr("Samples whose innermost frame is here");
    case CostColumn::Kind::Total:
        return name + tr("Samples with this frame on the stack, once each");
    case CostColumn::Kind::DerivedSelf:
        return name + tr("Ratio over the self samples (as cpcprof report)");
    case CostColumn::Kind::DerivedTotal:
        return name + tr("Ratio over the total samples");
    }
    return {};
}

namespace {

// An event's value in its unit: ms for the clocks (ns recorded), else the
// count.  The integer itself: a double is exact only up to 2^53.
QString eventValueText(const CostColumns &c, int event, uint64_t v) {
    if (size_t(event) < c.time_event.size() && c.time_event[size_t(event)])
        return QLocale().toString(double(v) / 1e6, 'f', 1) + QStringLiteral(" ms");
    return QLocale().toString(qulonglong(v));
}

QString shareText(double share) {
    return QLocale().toString(share * 100, 'f', 2) + QStringLiteral(" %");
}

} // namespace

QString formatCost(const CostColumns &c, const CostColumn &col, std::optional<double> v) {
    if (!v)
        return {};
    if (col.kind == CostColumn::Kind::Self || col.kind == CostColumn::Kind::Total)
        return eventValueText(c, col.event, uint64_t(*v));
    const std::string &kind = c.derived[size_t(col.derived)].kind;
    if (kind == "miss_ratio")
        return QString::number(*v * 100, 'f', 2) + QLatin1Char('%');
    return QString::number(*v, 'f', kind == "cpi" ? 3 : 2);
}

std::vector<double> CostModel::sortValues(int column) const {
    std::vector<double> v(keyCount(), -1);
    const Cost *self = nullptr, *total = nullptr;
    uint32_t fn = 0;
    if (column == 0 && profile_ && profile_->query) {
        const size_t n = profile_->query->functions().size();
        // Made by load_profile off the GUI thread, or here once per profile.
        const std::vector<uint32_t> *rank = &profile_->name_rank;
        if (rank->size() != n) {
            if (name_rank_.size() != n)
                name_rank_ = name_ranks(*profile_->query);
            rank = &name_rank_;
        }
        for (size_t k = 0; k < v.size(); ++k)
            if (costsOf(quint64(k), &self, &total, &fn))
                v[k] = (*rank)[fn];
        return v;
    }
    if (column > 0 && column < firstCostColumn()) {
        std::vector<QString> text(v.size());
        std::vector<uint32_t> order(v.size());
        for (size_t k = 0; k < v.size(); ++k) {
            text[k] = keyText(quint64(k), column - 1);
            order[k] = uint32_t(k);
        }
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            int c = QString::compare(text[a], text[b], Qt::CaseInsensitive);
            return c != 0 ? c < 0 : a < b;
        });
        for (size_t r = 0; r < order.size(); ++r)
            v[order[r]] = double(r);
        return v;
    }
    if (column >= firstDeltaColumn() && size_t(column - firstDeltaColumn()) < deltas_.size())
        return deltaSortValues(deltas_[size_t(column - firstDeltaColumn())]);
    int c = column - firstCostColumn();
    if (c < 0 || size_t(c) >= columns_.columns.size())
        return v;
    const CostColumn &col = columns_.columns[size_t(c)];
    for (size_t k = 0; k < v.size(); ++k)
        if (costsOf(quint64(k), &self, &total, &fn))
            v[k] = column_value(columns_, col, *self, *total).value_or(-1);
    return v;
}

QVariant CostModel::costData(const QModelIndex &index, const CostColumn &col, int role) const {
    const Cost *self = nullptr, *total = nullptr;
    uint32_t fn = 0;
    if (!costsOf(index, &self, &total, &fn))
        return {};
    switch (role) {
    case Qt::ToolTipRole: {
        auto share = column_share(columns_, col, *self, *total);
        QString t = tr("%1: %2 over %n samples", "", int(column_samples(col, *self, *total)))
                        .arg(QString::fromStdString(col.header),
                             formatCost(columns_, col, column_value(columns_, col, *self, *total)));
        if (share)
            t += tr(" (%1% of the run)").arg(*share * 100, 0, 'f', 2);
        return t;
    }
    default:
        return costCellData(columns_, col, *self, *total, role);
    }
}

QVariant costCellData(const CostColumns &c, const CostColumn &col, const Cost &self,
                      const Cost &total, int role, bool with_value) {
    switch (role) {
    case Qt::DisplayRole:
        if (col.kind == CostColumn::Kind::Self || col.kind == CostColumn::Kind::Total) {
            const Cost &v = col.kind == CostColumn::Kind::Self ? self : total;
            size_t e = size_t(col.event);
            QString value = eventValueText(c, col.event, e < v.values.size() ? v.values[e] : 0);
            auto share = column_share(c, col, self, total);
            if (!share)
                return value;
            return with_value ? shareText(*share) + QStringLiteral("  ") + value
                              : shareText(*share);
        }
        return formatCost(c, col, column_value(c, col, self, total));
    case SortRole:
        return column_value(c, col, self, total).value_or(-1);
    case ShareRole:
        if (auto s = column_share(c, col, self, total))
            return *s;
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant CostModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || !profile_)
        return {};
    const Cost *self = nullptr, *total = nullptr;
    uint32_t fn = 0;
    if (role == FunctionRole || role == KeyRole || index.column() == 0) {
        if (!costsOf(index, &self, &total, &fn))
            return {};
        if (role == FunctionRole)
            return uint(fn);
        if (role == KeyRole)
            return keyOf(index);
    }
    if (index.column() == 0) {
        const analysis::FunctionInfo &f = profile_->query->functions()[fn];
        switch (role) {
        case Qt::DisplayRole:
        case SortRole:
            return QString::fromStdString(f.name);
        case Qt::ToolTipRole: {
            int c = event_column(columns_, event_, CostColumn::Kind::Total);
            if (c < 0) // a run without events
                return QString::fromStdString(f.name);
            auto share = column_share(columns_, columns_.columns[size_t(c)], *self, *total);
            return tr("%1\nin %2\ntotal %3: %4%")
                .arg(QString::fromStdString(f.name),
                     f.module.empty() ? tr("no module") : QString::fromStdString(f.module),
                     QString::fromStdString(profile_->query->events()[size_t(event_)].name))
                .arg(share.value_or(0) * 100, 0, 'f', 2);
        }
        default:
            return {};
        }
    }
    if (index.column() <= keyColumns()) {
        if (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole)
            return keyText(keyOf(index), index.column() - 1);
        return {};
    }
    size_t c = size_t(index.column() - firstCostColumn());
    if (c >= columns_.columns.size() + deltas_.size())
        return {};
    if (c >= columns_.columns.size())
        return deltaData(index, deltas_[c - columns_.columns.size()], role);
    return costData(index, columns_.columns[c], role);
}

} // namespace cpcprof::gui
