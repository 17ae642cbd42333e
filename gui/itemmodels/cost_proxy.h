// SPDX-License-Identifier: MIT
// Filter and sort over a CostModel.  The filter is a search over function
// names (gui/model search: substring or regex); in trees the ancestors of
// matching rows stay so that every match shows where it is called.
// Sorting compares the figures themselves (no QVariant) on every column.
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
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

  private:
    CostModel *cost() const { return cost_; }
    void forgetSortValues();
    std::optional<NameMatcher> matcher_;
    std::optional<SearchResult> search_;
    CostModel *cost_ = nullptr; // the source, when it is a CostModel
    std::vector<uint8_t> keep_; // per source key; empty: keep all
    size_t kept_ = 0;
    // The source's sortValues(sort_column_), made on the first comparison.
    mutable int sort_column_ = -1;
    mutable std::vector<double> sort_values_;
};

} // namespace cpcprof::gui
