// SPDX-License-Identifier: MIT
#include "gui/pages/page_util.h"

#include "gui/itemmodels/cost_delegate.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/cost_proxy.h"
#include "gui/pages/filter_bar.h"

#include <QHeaderView>
#include <QMenu>
#include <QTableView>
#include <QTimer>
#include <QTreeView>

#include <algorithm>

namespace cpcprof::gui {

namespace {

// The Function column takes the room the cost columns leave; each cost
// column is as wide as its header and its widest cell among the first
// rows (a total's "100.00 %  2,326.0 ms"), so that neither is clipped.
void fitColumns(QAbstractItemView *view, QHeaderView *header) {
    if (header->count() == 0)
        return;
    header->setResizeContentsPrecision(200);
    header->setMinimumSectionSize(60);
    for (int c = 1; c < header->count(); ++c) {
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        int want = std::max(header->sectionSizeHint(c), view->sizeHintForColumn(c));
        header->resizeSection(c, want + 8);
    }
    header->setSectionResizeMode(0, QHeaderView::Stretch);
}

} // namespace

void setupCostView(QAbstractItemView *view, CostProxy *proxy) {
    view->setModel(proxy);
    // After the rows are in (a new profile, new columns).
    auto fit = [view] {
        QHeaderView *h = nullptr;
        if (auto *tree = qobject_cast<QTreeView *>(view))
            h = tree->header();
        else if (auto *table = qobject_cast<QTableView *>(view))
            h = table->horizontalHeader();
        if (h != nullptr)
            fitColumns(view, h);
    };
    QObject::connect(proxy, &QAbstractItemModel::modelReset, view,
                     [view, fit] { QTimer::singleShot(0, view, fit); });
    view->setItemDelegate(new CostDelegate(view));
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    if (auto *tree = qobject_cast<QTreeView *>(view)) {
        tree->setSortingEnabled(true);
        tree->setUniformRowHeights(true);
        tree->header()->setStretchLastSection(false);
        tree->header()->setDefaultSectionSize(110);
    } else if (auto *table = qobject_cast<QTableView *>(view)) {
        table->setSortingEnabled(true);
        table->verticalHeader()->hide();
        // One line per row, long paths shortened in the middle (the file
        // name and line stay readable): rows as tall as a tree's.
        table->setWordWrap(false);
        table->setTextElideMode(Qt::ElideMiddle);
        table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
        table->horizontalHeader()->setDefaultSectionSize(110);
    }
}

void sortByEvent(CostModel *model, QAbstractItemView *view, int event, CostColumn::Kind kind) {
    model->setEvent(event);
    int col = model->eventColumn(event, kind);
    if (col < 0)
        return;
    if (auto *tree = qobject_cast<QTreeView *>(view))
        tree->sortByColumn(col, Qt::DescendingOrder);
    else if (auto *table = qobject_cast<QTableView *>(view))
        table->sortByColumn(col, Qt::DescendingOrder);
}

QModelIndex shownIndex(FilterBar *filter, CostProxy *proxy, const QModelIndex &source, int event) {
    QModelIndex i = proxy->mapFromSource(source);
    if (!i.isValid()) {
        filter->clear({proxy}, event);
        i = proxy->mapFromSource(source);
    }
    return i;
}

void reveal(QAbstractItemView *view, const QModelIndex &proxy_index) {
    if (!proxy_index.isValid())
        return;
    if (auto *tree = qobject_cast<QTreeView *>(view))
        for (QModelIndex p = proxy_index.parent(); p.isValid(); p = p.parent())
            tree->expand(p);
    view->setCurrentIndex(proxy_index);
    view->scrollTo(proxy_index);
}

void functionMenu(QAbstractItemView *view, QPoint pos, const std::vector<MenuItem> &items) {
    QModelIndex row = view->indexAt(pos);
    if (!row.isValid())
        return;
    uint32_t fn = row.data(FunctionRole).toUInt();
    QMenu menu(view);
    for (const MenuItem &item : items)
        menu.addAction(item.text, view, [&item, row, fn] { item.act(row, fn); });
    menu.exec(view->viewport()->mapToGlobal(pos));
}

} // namespace cpcprof::gui
