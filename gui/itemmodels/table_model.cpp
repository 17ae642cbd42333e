// SPDX-License-Identifier: MIT
#include "gui/itemmodels/table_model.h"

#include <QFileInfo>

namespace cpcprof::gui {

HotspotTableModel::HotspotTableModel(QObject *parent)
    : CostModel(parent), rows_(std::make_shared<const std::vector<analysis::HotspotRow>>()) {}

void HotspotTableModel::setProfile(ProfilePtr profile) {
    resetProfile(profile);
    rows_ = std::make_shared<const std::vector<analysis::HotspotRow>>();
    row_of_function_.clear();
    if (profile && profile->query) {
        if (profile->hotspots) // aliasing: lives as long as the profile
            rows_ = std::shared_ptr<const std::vector<analysis::HotspotRow>>(profile,
                                                                             &*profile->hotspots);
        else
            rows_ = std::make_shared<const std::vector<analysis::HotspotRow>>(
                analysis::hotspot_rows(*profile->query, analysis::GroupBy::function));
        row_of_function_.assign(profile->query->functions().size(), -1);
        for (size_t r = 0; r < rows_->size(); ++r)
            row_of_function_[(*rows_)[r].function_index] = int(r);
    }
    endResetModel();
}

QModelIndex HotspotTableModel::index(int row, int column, const QModelIndex &parent) const {
    if (parent.isValid() || row < 0 || size_t(row) >= rows_->size() || column < 0 ||
        column >= columnCount())
        return {};
    return createIndex(row, column, quintptr(row));
}

QModelIndex HotspotTableModel::parent(const QModelIndex &) const {
    return {};
}

int HotspotTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(rows_->size());
}

int HotspotTableModel::rowOfFunction(uint32_t fn) const {
    return fn < row_of_function_.size() ? row_of_function_[fn] : -1;
}

std::vector<uint8_t> HotspotTableModel::keysMatching(const std::vector<bool> &matches) const {
    std::vector<uint8_t> keep(rows_->size());
    for (size_t r = 0; r < rows_->size(); ++r)
        keep[r] =
            (*rows_)[r].function_index < matches.size() && matches[(*rows_)[r].function_index];
    return keep;
}

QString HotspotTableModel::keyHeader(int key) const {
    return key == 0 ? tr("Module") : tr("Location");
}

QString HotspotTableModel::keyText(quint64 row, int key) const {
    if (row >= rows_->size())
        return {};
    const analysis::HotspotRow &r = (*rows_)[row];
    if (key == 0) {
        const std::string &m = profile()->query->functions()[r.function_index].module;
        return m.empty() ? QStringLiteral("?") : QFileInfo(QString::fromStdString(m)).fileName();
    }
    return QString::fromStdString(analysis::location(r));
}

size_t HotspotTableModel::keyCount() const {
    return rows_->size();
}

bool HotspotTableModel::costsOf(quint64 key, const analysis::Cost **self,
                                const analysis::Cost **total, uint32_t *function) const {
    if (key >= rows_->size())
        return false;
    const analysis::HotspotRow &r = (*rows_)[key];
    *self = &r.self;
    *total = &r.total;
    *function = r.function_index;
    return true;
}

DeltaInput HotspotTableModel::deltaOf(quint64 key) const {
    if (!diff() || !rows_ || key >= rows_->size())
        return {};
    return diff()->function_delta((*rows_)[key].function_index);
}

} // namespace cpcprof::gui
