#include "views/cost_proxy.h"

namespace cpcprof::gui {

CostProxy::CostProxy(QObject *parent) : QSortFilterProxyModel(parent) {
    setSortRole(SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

CostModel *CostProxy::cost() const {
    return qobject_cast<CostModel *>(sourceModel());
}

void CostProxy::setSourceModel(QAbstractItemModel *source) {
    QSortFilterProxyModel::setSourceModel(source);
    if (source)
        connect(source, &QAbstractItemModel::modelReset, this, &CostProxy::refilter);
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
    if (matcher_ && c && c->profile() && c->profile()->query) {
        search_ = gui::search(*c->profile()->query, *matcher_);
        keep_ = c->keysMatching(search_->function_matches);
    }
    invalidateRowsFilter();
}

bool CostProxy::filterAcceptsRow(int source_row, const QModelIndex &source_parent) const {
    if (!search_)
        return true;
    QModelIndex i = sourceModel()->index(source_row, 0, source_parent);
    quint64 key = cost()->keyOf(i);
    return key < keep_.size() && keep_[key];
}

bool CostProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const {
    CostModel *c = cost();
    if (!c || left.column() < c->firstCostColumn())
        return QSortFilterProxyModel::lessThan(left, right);
    double l = c->sortValue(left), r = c->sortValue(right);
    if (l != r)
        return l < r;
    // Ties by name, so that the order does not depend on the source's.
    return QSortFilterProxyModel::lessThan(left.siblingAtColumn(0), right.siblingAtColumn(0));
}

} // namespace cpcprof::gui
