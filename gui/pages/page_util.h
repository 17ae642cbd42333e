// SPDX-License-Identifier: MIT
// What the pages share: a view set up for cost columns (sorting on every
// column, cost bars, names wide), and the reveal of a row.
#pragma once

#include <QAbstractItemView>
#include <QModelIndex>

class QTreeView;

namespace cpcprof::gui {

class CostProxy;

// Sorting on, the cost delegate on every column, uniform rows (trees).
void setupCostView(QAbstractItemView *view, CostProxy *proxy);

// Expands the ancestors of the proxy index, makes it current and visible.
void reveal(QAbstractItemView *view, const QModelIndex &proxy_index);

} // namespace cpcprof::gui
