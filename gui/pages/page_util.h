// SPDX-License-Identifier: MIT
// What the pages share: a view set up for cost columns (sorting on every
// column, cost bars, names wide), sorting by an event, and the reveal of
// a row (through the filter when it hides the row), a function row's
// context menu.
#pragma once

#include "gui/model/cost_columns.h"

#include <QAbstractItemView>
#include <QModelIndex>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

class QHeaderView;
class QTreeView;

namespace cpcprof::gui {

class CostModel;
class CostProxy;
class FilterBar;

// Sorting on, the cost delegate on every column, uniform rows (trees);
// columns fitted to their content after every reset, with the choices a
// person made in the header's menu (keepColumnChoices) under name; the
// columns headed by a text of hidden are hidden until a person shows them.
void setupCostView(QAbstractItemView *view, CostProxy *proxy, const QString &name,
                   const QStringList &hidden = {});

// The columns a person hides or shows (the header's context menu: a check
// box per column, and "Show all, fitted") and the widths they drag them
// to (resizes with a mouse button down on the header; not those of a
// reset or a fit), kept in QSettings under "columns/<name>/" by header text: the same
// on every page switch, profile and restart.  The first column always
// shows.
void keepColumnChoices(QHeaderView *header, const QString &name);
// After a reset: every column but the first as wide as its header and its
// widest cell among the first rows, or as the person left it; the hidden
// ones hidden.  stretch_first: the first column takes the room left.
void fitColumns(QAbstractItemView *view, QHeaderView *header, const QString &name,
                bool stretch_first);
// What the person chose for the column headed text of view name: shown
// (true), hidden (false), or nothing.
std::optional<bool> columnChoice(const QString &name, const QString &text);

// Tells model the chosen event and sorts view by its self or total
// column, largest first.
void sortByEvent(CostModel *model, QAbstractItemView *view, int event, CostColumn::Kind kind);

// The proxy's index of a source index; when the filter hides it, the
// filter is cleared first (the row asked for is shown either way).
QModelIndex shownIndex(FilterBar *filter, CostProxy *proxy, const QModelIndex &source, int event);

// Expands the ancestors of the proxy index, makes it current and visible.
void reveal(QAbstractItemView *view, const QModelIndex &proxy_index);

// An entry of a function row's context menu: act(row, its function).
struct MenuItem {
    QString text;
    std::function<void(const QModelIndex &row, uint32_t fn)> act;
};

// Opens the context menu of the function row under pos (view's viewport
// coordinates, as customContextMenuRequested gives them) with items in
// order; nothing off the rows.
void functionMenu(QAbstractItemView *view, QPoint pos, const std::vector<MenuItem> &items);

} // namespace cpcprof::gui
