// SPDX-License-Identifier: MIT
#include "gui/itemmodels/cost_proxy.h"

#include <algorithm>

namespace cpcprof::gui {

CostProxy::CostProxy(QObject *parent) : QSortFilterProxyModel(parent) {
    setSortRole(SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void CostProxy::setSourceModel(QAbstractItemModel *source) {
    cost_ = qobject_cast<CostModel *>(source);
    QSortFilterProxyModel::setSourceModel(source);
    if (source)
        connect(source, &QAbstractItemModel::modelReset, this, &CostProxy::refilter);
}

void CostProxy::sort(int column, Qt::SortOrder order) {
    if (cost_)
        cost_->sortBy(column, order);
    else
        QSortFilterProxyModel::sort(column, order);
}

bool CostProxy::setFilter(const QString &pattern, bool regex, QString *error) {
    std::string why;
    auto m = NameMatcher::make(pattern.toStdString(), regex, &why);
    if (!m) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    matcher_ = std::move(m);
    if (matcher_->empty())
        matcher_.reset();
    refilter();
    return true;
}

void CostProxy::refilter() {
    keep_.clear();
    search_.reset();
    CostModel *c = cost();
    kept_ = c ? c->keyCount() : 0;
    if (matcher_ && c && c->profile() && c->profile()->query) {
        search_ = gui::search(*c->profile()->query, *matcher_);
        keep_ = c->keysMatching(search_->function_matches);
        kept_ = size_t(std::count(keep_.begin(), keep_.end(), 1));
    }
    invalidateRowsFilter();
}

bool CostProxy::filterAcceptsRow(int source_row, const QModelIndex &source_parent) const {
    if (!search_ || !cost())
        return true;
    QModelIndex i = sourceModel()->index(source_row, 0, source_parent);
    quint64 key = cost()->keyOf(i);
    return key < keep_.size() && keep_[key];
}

} // namespace cpcprof::gui
