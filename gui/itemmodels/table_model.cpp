// SPDX-License-Identifier: MIT
#include "gui/itemmodels/table_model.h"

#include <QFileInfo>

namespace cpcprof::gui {

HotspotTableModel::HotspotTableModel(QObject *parent)
    : CostModel(parent), rows_(std::make_shared<const std::vector<analysis::HotspotRow>>()) {}

void HotspotTableModel::setProfile(ProfilePtr profile) {
    resetProfile(profile);
    rows_ = std::make_shared<const std::vector<analysis::HotspotRow>>();
    key_of_function_.clear();
    if (profile && profile->query) {
        if (profile->hotspots) // aliasing: lives as long as the profile
            rows_ = std::shared_ptr<const std::vector<analysis::HotspotRow>>(profile,
                                                                             &*profile->hotspots);
        else
            rows_ = std::make_shared<const std::vector<analysis::HotspotRow>>(
                analysis::hotspot_rows(*profile->query, analysis::GroupBy::function));
        key_of_function_.assign(profile->query->functions().size(), -1);
        for (size_t r = 0; r < rows_->size(); ++r)
            key_of_function_[(*rows_)[r].function_index] = int(r);
    }
    arrangeBySort();
    endResetModel();
}

void HotspotTableModel::arrangeRows(int column, Qt::SortOrder order) {
    const ProfilePtr &p = profile();
    const std::optional<CostKind> kind = defaultOrder(column, order);
    const std::optional<RowOrder> *made = nullptr; // made with the profile's rows
    if (kind && p && p->hotspots && rows_.get() == &*p->hotspots)
        made = *kind == CostKind::self ? &p->hotspots_by_self : &p->hotspots_by_total;
    if (made && *made && (*made)->items.size() == rows_->size()) {
        order_ = (*made)->items;
    } else {
        order_.resize(rows_->size());
        for (uint32_t k = 0; k < order_.size(); ++k)
            order_[k] = k;
        if (column >= 0)
            orderKeys(order_.data(), order_.data() + order_.size(), sortValues(column), order);
    }
    place_.resize(order_.size());
    for (uint32_t r = 0; r < order_.size(); ++r)
        place_[order_[r]] = r;
}

QModelIndex HotspotTableModel::indexOfKey(quint64 key, int column) const {
    return key < place_.size() ? index(int(place_[key]), column) : QModelIndex();
}

QModelIndex HotspotTableModel::index(int row, int column, const QModelIndex &parent) const {
    if (parent.isValid() || row < 0 || size_t(row) >= order_.size() || column < 0 ||
        column >= columnCount())
        return {};
    return createIndex(row, column, quintptr(order_[size_t(row)]));
}

QModelIndex HotspotTableModel::parent(const QModelIndex &) const {
    return {};
}

int HotspotTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(order_.size());
}

int HotspotTableModel::rowOfFunction(uint32_t fn) const {
    int key = fn < key_of_function_.size() ? key_of_function_[fn] : -1;
    return key < 0 ? -1 : int(place_[size_t(key)]);
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
