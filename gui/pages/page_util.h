// SPDX-License-Identifier: MIT
// What the pages share: a view set up for cost columns (sorting on every
// column, cost bars, names wide), sorting by an event, and the reveal of
// a row (through the filter when it hides the row).
#pragma once

#include "gui/model/cost_columns.h"

#include <QAbstractItemView>
#include <QModelIndex>

class QTreeView;

namespace cpcprof::gui {

class CostModel;
class CostProxy;
class FilterBar;

// Sorting on, the cost delegate on every column, uniform rows (trees).
void setupCostView(QAbstractItemView *view, CostProxy *proxy);

// Tells model the chosen event and sorts view by its self or total
// column, largest first.
void sortByEvent(CostModel *model, QAbstractItemView *view, int event, CostColumn::Kind kind);

// The proxy's index of a source index; when the filter hides it, the
// filter is cleared first (the row asked for is shown either way).
QModelIndex shownIndex(FilterBar *filter, CostProxy *proxy, const QModelIndex &source, int event);

// Expands the ancestors of the proxy index, makes it current and visible.
void reveal(QAbstractItemView *view, const QModelIndex &proxy_index);

} // namespace cpcprof::gui
