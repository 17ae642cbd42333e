// SPDX-License-Identifier: MIT
// Filter over a CostModel.  The filter is a search over function names
// (gui/model search: substring or regex); in trees the ancestors of
// matching rows stay so that every match shows where it is called.
// Sorting is the CostModel's (sort() passes it on): the proxy keeps the
// source's order.
#pragma once

#include "gui/itemmodels/cost_model.h"
#include "gui/model/search.h"

#include <QSortFilterProxyModel>

#include <optional>

namespace cpcprof::gui {

class CostProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit CostProxy(QObject *parent = nullptr);

    void setSourceModel(QAbstractItemModel *source) override;
    // CostModel::sortBy of the source, or QSortFilterProxyModel's sort when
    // the source is another model.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Keeps the rows of functions matching pattern (empty: every row).
    // false, with *error naming the problem, for an invalid expression
    // (the filter is then left as it was).
    bool setFilter(const QString &pattern, bool regex, QString *error);
    // The last search (nothing when no filter is set): its matches and
    // their share, once per sample.
    const std::optional<SearchResult> &search() const { return search_; }
    // Re-applies the filter to a source whose rows changed.
    void refilter();
    // Source rows the filter keeps (every row when there is no filter).
    size_t keptRows() const { return kept_; }

  protected:
    bool filterAcceptsRow(int source_row, const QModelIndex &source_parent) const override;

  private:
    CostModel *cost() const { return cost_; }
    std::optional<NameMatcher> matcher_;
    std::optional<SearchResult> search_;
    CostModel *cost_ = nullptr; // the source, when it is a CostModel
    std::vector<uint8_t> keep_; // per source key; empty: keep all
    size_t kept_ = 0;
};

} // namespace cpcprof::gui
