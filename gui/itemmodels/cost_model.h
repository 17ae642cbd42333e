// SPDX-License-Identifier: MIT
// The base of the viewer's item models: a name column, optional key
// columns (module, file:line), then the cost columns of gui/model's
// CostColumns (self and total of every event, derived ratios).  Cells
// carry their figure as a number under SortRole and, for event columns,
// their share of the event's total under ShareRole (the cost bars).
// Subclasses say where a row's costs are; CostProxy filters and sorts
// through the hooks below without going through QVariant.
#pragma once

#include "gui/model/cost_columns.h"
#include "gui/model/diff_data.h"
#include "gui/model/profile_data.h"
#include "gui/model/row_order.h"

#include <QAbstractItemModel>
#include <QStringList>

#include <optional>
#include <vector>

namespace cpcprof::gui {

enum CostRole {
    SortRole = Qt::UserRole + 1, // double for costs (-1 where a ratio has no value), QString names
    ShareRole,                   // double in [0, 1]: event columns only
    FunctionRole,                // uint: Query::functions() index of the row
    KeyRole,                     // quint64: the row's key (tree node, table row)
};

class CostModel : public QAbstractItemModel {
    Q_OBJECT
  public:
    explicit CostModel(QObject *parent = nullptr);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // The first cost column (after name and key columns).
    int firstCostColumn() const { return 1 + keyColumns(); }
    // The column of event's self or total; -1 if none.
    int eventColumn(int event, CostColumn::Kind kind) const;
    const CostColumns &costColumns() const { return columns_; }
    const ProfilePtr &profile() const { return profile_; }

    // Comparing with a base (diff->now must be this model's profile, else
    // it is ignored): delta columns after the cost columns
    // (delta_columns), coloured red where the row grew and blue where it
    // shrank, BASE's figures in their tooltips.  nullptr removes them.
    void setDiff(DiffPtr diff);
    const DiffPtr &diff() const { return diff_; }
    int firstDeltaColumn() const { return firstCostColumn() + int(columns_.columns.size()); }
    // The delta column of event (NEW's index); -1 if none.
    int deltaColumn(int event, bool self, bool share) const;

    // The event whose share the name column's tooltip gives.
    void setEvent(int event);
    int event() const { return event_; }

    // Sorting is the model's own, not a proxy's (CostProxy::sort comes
    // here): the rows of every parent in the order of column's figures
    // (sortValues), ties in the order the rows were made; column -1 (or
    // one the model has not): as made.  The order is kept for the next
    // profile and made for it before its reset ends.  One std::sort of
    // numbers per parent: a proxy's sort through model indexes took 40-70
    // ms of the GUI thread for 91,000 rows, this 5-10 ms.
    void sortBy(int column, Qt::SortOrder order);
    int sortColumn() const { return sort_column_; }
    Qt::SortOrder sortOrder() const { return sort_order_; }

    // For CostProxy.  Rows have keys (KeyRole, the internal id of their
    // indexes) in [0, keyCount()).  The figure SortRole holds in a cost
    // column, per key (-1 for none); for the name column, the rank of the
    // row's function name (case-insensitive), for a key column the rank of
    // its text: so that sorting compares
    // numbers in one array, not QVariants.  O(keys) per call.
    std::vector<double> sortValues(int column) const;
    // Which keys to keep for the functions that match a search.
    virtual std::vector<uint8_t> keysMatching(const std::vector<bool> &function_matches) const = 0;
    virtual size_t keyCount() const = 0;
    quint64 keyOf(const QModelIndex &index) const { return index.internalId(); }

  protected:
    // Starts a reset; call arrangeBySort() and endResetModel() when the
    // rows are in place.
    void resetProfile(ProfilePtr profile);
    // Puts the rows of every parent in the order of column (-1: as made),
    // without signals (sortBy and resets send them): by sortValues(column)
    // through orderKeys, or by a RowOrder the profile came with where
    // defaultOrder says it is the same.
    virtual void arrangeRows(int column, Qt::SortOrder order) = 0;
    // Whether a sort by column in order is one that a RowOrder of the
    // profile gives (gui/model/row_order.h): the first event's self or
    // total, descending; which.
    std::optional<CostKind> defaultOrder(int column, Qt::SortOrder order) const;
    // The index of key's row in column, as arranged.
    virtual QModelIndex indexOfKey(quint64 key, int column) const = 0;
    // arrangeRows by the kept sort.
    void arrangeBySort();
    // Orders the keys in [first, last) by values, ties by key.
    static void orderKeys(uint32_t *first, uint32_t *last, const std::vector<double> &values,
                          Qt::SortOrder order);
    // Columns between the name and the costs (module, file:line).
    virtual int keyColumns() const { return 0; }
    virtual QString keyHeader(int /*key column*/) const { return {}; }
    virtual QString keyText(quint64 /*row key*/, int /*key column*/) const { return {}; }
    // The costs of the row of key; false for none.
    virtual bool costsOf(quint64 key, const analysis::Cost **self, const analysis::Cost **total,
                         uint32_t *function) const = 0;
    bool costsOf(const QModelIndex &index, const analysis::Cost **self,
                 const analysis::Cost **total, uint32_t *function) const {
        return index.isValid() && costsOf(keyOf(index), self, total, function);
    }

    // The row's values in NEW and BASE for the delta columns; none by
    // default (the cells stay empty).
    virtual DeltaInput deltaOf(quint64 /*key*/) const { return {}; }

  private:
    QVariant deltaData(const QModelIndex &index, const DeltaColumn &col, int role) const;
    QVariant deltaHeader(const DeltaColumn &col, int role) const;
    std::vector<double> deltaSortValues(const DeltaColumn &col) const;
    QVariant costData(const QModelIndex &index, const CostColumn &col, int role) const;
    ProfilePtr profile_;
    CostColumns columns_;
    mutable std::vector<uint32_t> name_rank_; // per function; made on the first name sort
    int event_ = 0;
    int sort_column_ = -1;
    Qt::SortOrder sort_order_ = Qt::DescendingOrder;
    bool arranged_ = false; // the rows are in the kept sort's order
    DiffPtr diff_;
    std::vector<DeltaColumn> deltas_;
};

// A figure as the views print it: clock events in ms ("1,244.0 ms"),
// other events as integers with thousands separators, CPI with 3
// decimals, misses per 1k with 2, ratios in %.
QString formatCost(const CostColumns &c, const CostColumn &col, std::optional<double> v);

// What a cost cell shows for the roles every cost view shares (display,
// SortRole, ShareRole, alignment), from a row's self and total cost; an
// invalid QVariant for the other roles (and for a share a column has not).
// An event's cell reads its share of the run first, then (with_value) its
// value in its unit: "46.16 %  1,244.0 ms".
QVariant costCellData(const CostColumns &c, const CostColumn &col, const analysis::Cost &self,
                      const analysis::Cost &total, int role, bool with_value = true);

// The text colour of a change: red grew, blue shrank when the change of
// share is beyond noise (test; a count's change follows its share's),
// grey within noise; none for no change.
QVariant changeForeground(double change, const std::optional<analysis::ShareTest> &test);

// "beyond noise at 99 %: +0.21 .. +2.31 pp", "within noise at 99 % ...".
QString noiseText(const analysis::ShareTest &t, double confidence);

} // namespace cpcprof::gui
