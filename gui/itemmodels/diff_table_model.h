// SPDX-License-Identifier: MIT
// The item model of the Comparison page: one row per function of either
// profile (`cpcprof diff`'s table: functions matched by name and module
// basename), with its status (in both, only in NEW, only in BASE) and per
// common event its self and total share in BASE and NEW, their change in
// percentage points and the change of its counts.  Rows come in
// `cpcprof diff`'s order for the chosen event (largest change first);
// SortRole holds every cell's number for sorting by any column.
#pragma once

#include "gui/model/diff_data.h"

#include <QAbstractTableModel>

#include <vector>

namespace cpcprof::gui {

class DiffTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    // The figures of a common event, in this order, from column 3 on.
    enum Figure {
        BaseSelf,
        NewSelf,
        SelfPoints,
        BaseTotal,
        NewTotal,
        TotalPoints,
        SelfCount,
        TotalCount,
        Figures
    };
    static constexpr int kKeyColumns = 3; // function, module, status

    explicit DiffTableModel(QObject *parent = nullptr);

    // nullptr clears.  event: index in Comparison::events that orders rows.
    void setDiff(DiffPtr diff, size_t event = 0);
    const DiffPtr &diff() const { return diff_; }
    int column(size_t event, Figure f) const { return kKeyColumns + int(event) * Figures + f; }
    // The comparison row (index in Comparison::functions) of a row.
    size_t functionAt(int row) const { return rows_[size_t(row)]; }
    // The row of the function named name (in module module if not empty); -1 if none.
    int rowNamed(const std::string &name, const std::string &module = {}) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::optional<double> figure(const analysis::FunctionDiff &f, size_t e, Figure fig) const;
    DiffPtr diff_;
    std::vector<size_t> rows_;
};

} // namespace cpcprof::gui
