// SPDX-License-Identifier: MIT
// The item model of the flat hotspot table: one row per function
// (profiler/analysis HotspotRow, by function), with module and file:line key columns.
#pragma once

#include "gui/itemmodels/cost_model.h"
#include "profiler/analysis/hotspots.h"

namespace cpcprof::gui {

class HotspotTableModel : public CostModel {
    Q_OBJECT
  public:
    explicit HotspotTableModel(QObject *parent = nullptr);

    // Builds the rows of profile (nullptr clears).
    void setProfile(ProfilePtr profile);
    const std::vector<analysis::HotspotRow> &rows() const { return *rows_; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;

    // The row (as sorted) of function fn; -1 if it has none.
    int rowOfFunction(uint32_t fn) const;

    std::vector<uint8_t> keysMatching(const std::vector<bool> &function_matches) const override;
    size_t keyCount() const override;

  protected:
    using CostModel::costsOf;
    int keyColumns() const override { return 2; }
    QString keyHeader(int key) const override;
    QString keyText(quint64 row, int key) const override;
    bool costsOf(quint64 key, const analysis::Cost **self, const analysis::Cost **total,
                 uint32_t *function) const override;
    DeltaInput deltaOf(quint64 key) const override;
    void arrangeRows(int column, Qt::SortOrder order) override;
    QModelIndex indexOfKey(quint64 key, int column) const override;

  private:
    // The profile's rows (ProfileData::hotspots), or rows made here; a
    // row's key is its index there.
    std::shared_ptr<const std::vector<analysis::HotspotRow>> rows_;
    std::vector<int> key_of_function_;
    std::vector<uint32_t> order_; // the keys as sorted
    std::vector<uint32_t> place_; // per key, its row in order_
};

} // namespace cpcprof::gui
