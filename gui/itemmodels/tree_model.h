// SPDX-License-Identifier: MIT
// The item model of every call tree of the viewer (top-down, bottom-up,
// callers, callees): rows are gui/model CostTree nodes, the internal id of
// an index is its node.
#pragma once

#include "gui/itemmodels/cost_model.h"
#include "gui/model/cost_tree.h"

namespace cpcprof::gui {

class CostTreeModel : public CostModel {
    Q_OBJECT
  public:
    explicit CostTreeModel(QObject *parent = nullptr);

    // Replaces the tree (an empty CostTree clears the model).
    void setTree(CostTree tree);
    const CostTree &tree() const { return tree_; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    // Node n's index in column 0; invalid for 0 or a node out of range.
    QModelIndex indexOfNode(uint32_t n) const;
    uint32_t nodeOf(const QModelIndex &index) const { return uint32_t(index.internalId()); }

    std::vector<uint8_t> keysMatching(const std::vector<bool> &function_matches) const override;
    size_t keyCount() const override;

  protected:
    using CostModel::costsOf;
    bool costsOf(quint64 key, const analysis::Cost **self, const analysis::Cost **total,
                 uint32_t *function) const override;
    DeltaInput deltaOf(quint64 key) const override;
    void arrangeRows(int column, Qt::SortOrder order) override;
    QModelIndex indexOfKey(quint64 key, int column) const override;

  private:
    CostTree tree_;
    // Node n's children as sorted: kids_[first_[n] .. first_[n + 1]); the
    // row of node n among its siblings: place_[n].
    std::vector<uint32_t> kids_, first_, place_;
};

} // namespace cpcprof::gui
