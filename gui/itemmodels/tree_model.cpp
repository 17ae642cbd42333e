// SPDX-License-Identifier: MIT
#include "gui/itemmodels/tree_model.h"

#include "gui/model/search.h"

#include <QFont>

#include <algorithm>

namespace cpcprof::gui {

CostTreeModel::CostTreeModel(QObject *parent) : CostModel(parent) {}

void CostTreeModel::setTree(CostTree tree) {
    resetProfile(tree.profile);
    tree_ = std::move(tree);
    first_.clear(); // arranged anew
    arrangeBySort();
    endResetModel();
}

void CostTreeModel::arrangeRows(int column, Qt::SortOrder order) {
    const size_t n = tree_.size();
    const ProfilePtr &p = profile();
    const std::optional<RowOrder> *made = nullptr; // made with the profile's tree
    if (defaultOrder(column, order) == CostKind::total && p && tree_.tree) {
        if (p->top_down && tree_.tree.get() == &*p->top_down)
            made = &p->top_down_order;
        else if (p->bottom_up && tree_.tree.get() == &*p->bottom_up)
            made = &p->bottom_up_order;
    }
    if (made && *made && (*made)->first.size() == n + 1) {
        kids_ = (*made)->items;
        first_ = (*made)->first;
    } else {
        if (first_.size() != n + 1) { // a new tree: its children as made
            first_.assign(n + 1, 0);
            kids_.clear();
            kids_.reserve(n > 0 ? n - 1 : 0);
            for (uint32_t v = 0; v < n; ++v) {
                const std::vector<uint32_t> &children = tree_.node(v).children;
                kids_.insert(kids_.end(), children.begin(), children.end());
                first_[v + 1] = uint32_t(kids_.size());
            }
        }
        const std::vector<double> values = column >= 0 ? sortValues(column) : std::vector<double>{};
        for (uint32_t v = 0; v < n; ++v) {
            uint32_t *begin = kids_.data() + first_[v], *end = kids_.data() + first_[v + 1];
            if (end - begin < 2)
                continue;
            if (column >= 0)
                orderKeys(begin, end, values, order);
            else // as made: a node's children are made in the order of their ids
                std::sort(begin, end);
        }
    }
    place_.assign(n, 0);
    for (uint32_t v = 0; v < n; ++v)
        for (uint32_t i = first_[v]; i < first_[v + 1]; ++i)
            place_[kids_[i]] = i - first_[v];
}

QModelIndex CostTreeModel::indexOfKey(quint64 key, int column) const {
    if (key == 0 || key >= place_.size())
        return {};
    return createIndex(int(place_[key]), column, quintptr(key));
}

QModelIndex CostTreeModel::index(int row, int column, const QModelIndex &parent) const {
    if (row < 0 || column < 0 || column >= columnCount() ||
        (parent.isValid() && parent.column() != 0))
        return {};
    uint32_t p = parent.isValid() ? nodeOf(parent) : 0;
    if (size_t(p) + 1 >= first_.size() || uint32_t(row) >= first_[p + 1] - first_[p])
        return {};
    return createIndex(row, column, quintptr(kids_[first_[p] + uint32_t(row)]));
}

QModelIndex CostTreeModel::parent(const QModelIndex &child) const {
    if (!child.isValid())
        return {};
    uint32_t n = nodeOf(child);
    if (n == 0 || n >= tree_.size())
        return {};
    uint32_t p = tree_.node(n).parent;
    if (p == 0)
        return {};
    return createIndex(int(place_[p]), 0, quintptr(p));
}

int CostTreeModel::rowCount(const QModelIndex &parent) const {
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(tree_.child_count(parent.isValid() ? nodeOf(parent) : 0));
}

QVariant CostTreeModel::data(const QModelIndex &index, int role) const {
    // Inlined calls in italics, as the flame graph draws them apart.
    if (role == Qt::FontRole && index.isValid() && index.column() == 0 &&
        tree_.node(nodeOf(index)).inlined) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    return CostModel::data(index, role);
}

QModelIndex CostTreeModel::indexOfNode(uint32_t n) const {
    return indexOfKey(n, 0);
}

std::vector<uint8_t> CostTreeModel::keysMatching(const std::vector<bool> &function_matches) const {
    return keep_nodes(tree_, function_matches);
}

size_t CostTreeModel::keyCount() const {
    return tree_.size();
}

bool CostTreeModel::costsOf(quint64 key, const analysis::Cost **self, const analysis::Cost **total,
                            uint32_t *function) const {
    uint32_t n = uint32_t(key);
    if (key == 0 || key >= tree_.size())
        return false;
    const auto &node = tree_.node(n);
    *self = &node.self;
    *total = &node.total;
    *function = node.function;
    return true;
}

DeltaInput CostTreeModel::deltaOf(quint64 key) const {
    // The top-down and bottom-up trees have their call paths matched in
    // BASE with the comparison, callers and callees trees when made.
    const DiffPtr &d = diff();
    if (!d || key == 0 || key >= tree_.size() || tree_.profile != d->now)
        return {};
    if (tree_.base_match)
        return d->path_delta(*tree_.base_match, uint32_t(key));
    const analysis::CallTree *t = tree_.tree.get();
    if (d->now->top_down && t == &*d->now->top_down)
        return d->node_delta(DiffData::TopDown, uint32_t(key));
    if (d->now->bottom_up && t == &*d->now->bottom_up)
        return d->node_delta(DiffData::BottomUp, uint32_t(key));
    return {};
}

} // namespace cpcprof::gui
