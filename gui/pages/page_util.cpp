// SPDX-License-Identifier: MIT
#include "gui/pages/page_util.h"

#include "gui/itemmodels/cost_delegate.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/cost_proxy.h"
#include "gui/pages/filter_bar.h"

#include <QAction>
#include <QEvent>
#include <QHeaderView>
#include <QMenu>
#include <QSettings>
#include <QTableView>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <functional>

namespace cpcprof::gui {

namespace {

// Set while the code sizes columns: only a person's drags are kept.
constexpr const char *kFitting = "cpcprofFitting";

// Whether a mouse button is down on a header: its sections' resizes then
// are a person's drags (the others come from resets and fits).
class DragWatch : public QObject {
  public:
    using QObject::QObject;
    bool dragging = false;

  protected:
    bool eventFilter(QObject *, QEvent *e) override {
        if (e->type() == QEvent::MouseButtonPress)
            dragging = true;
        else if (e->type() == QEvent::MouseButtonRelease)
            dragging = false;
        return false;
    }
};

// Set on a view whose columns are to be fitted when it is next shown.
constexpr const char *kFitWhenShown = "cpcprofFitWhenShown";
// A header's columns hidden until a person shows them (setupCostView).
constexpr const char *kHiddenUnlessChosen = "cpcprofHiddenUnlessChosen";

// Calls shown when the watched widget is shown (before it is painted).
class ShowWatch : public QObject {
  public:
    ShowWatch(QObject *parent, std::function<void()> shown)
        : QObject(parent), shown_(std::move(shown)) {}

  protected:
    bool eventFilter(QObject *, QEvent *e) override {
        if (e->type() == QEvent::Show)
            shown_();
        return false;
    }

  private:
    std::function<void()> shown_;
};

QString settingsKey(const QString &name, const QString &what, const QString &text) {
    // Header texts may hold '/', which QSettings reads as a group.
    return "columns/" + name + "/" + what + "/" + QString(text).replace('/', '_');
}

QString headerText(const QHeaderView *header, int section) {
    return header->model() ? header->model()->headerData(section, Qt::Horizontal).toString()
                           : QString();
}

void setChoice(const QString &name, const QString &text, bool shown) {
    QSettings().setValue(settingsKey(name, "shown", text), shown);
}

} // namespace

std::optional<bool> columnChoice(const QString &name, const QString &text) {
    QVariant v = QSettings().value(settingsKey(name, "shown", text));
    if (!v.isValid())
        return std::nullopt;
    return v.toBool();
}

void fitColumns(QAbstractItemView *view, QHeaderView *header, const QString &name,
                bool stretch_first) {
    if (header->count() == 0)
        return;
    header->setProperty(kFitting, true);
    header->setResizeContentsPrecision(200);
    header->setMinimumSectionSize(40);
    QSettings settings;
    const QStringList hidden = header->property(kHiddenUnlessChosen).toStringList();
    for (int c = 1; c < header->count(); ++c) {
        const QString text = headerText(header, c);
        header->setSectionHidden(c, !columnChoice(name, text).value_or(!hidden.contains(text)));
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        int kept = settings.value(settingsKey(name, "width", text), -1).toInt();
        int want =
            kept > 0 ? kept : std::max(header->sectionSizeHint(c), view->sizeHintForColumn(c)) + 8;
        header->resizeSection(c, want);
    }
    if (stretch_first) {
        header->setSectionResizeMode(0, QHeaderView::Stretch);
    } else {
        header->setSectionResizeMode(0, QHeaderView::Interactive);
        header->resizeSection(0, std::max(header->sectionSizeHint(0), view->sizeHintForColumn(0)));
    }
    header->setProperty(kFitting, false);
}

void keepColumnChoices(QHeaderView *header, const QString &name) {
    header->setSectionsClickable(true);
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    auto *watch = new DragWatch(header);
    header->viewport()->installEventFilter(watch);
    QObject::connect(header, &QHeaderView::sectionResized, header,
                     [header, name, watch](int section, int, int size) {
                         if (section == 0 || size <= 0 || !watch->dragging ||
                             header->property(kFitting).toBool() ||
                             header->sectionResizeMode(section) != QHeaderView::Interactive)
                             return;
                         QSettings().setValue(
                             settingsKey(name, "width", headerText(header, section)), size);
                     });
    QObject::connect(
        header, &QHeaderView::customContextMenuRequested, header, [header, name](QPoint pos) {
            QMenu menu(header);
            for (int c = 1; c < header->count(); ++c) {
                const QString text = headerText(header, c);
                QAction *a = menu.addAction(text);
                a->setCheckable(true);
                a->setChecked(!header->isSectionHidden(c));
                a->setToolTip(
                    header->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString());
                QObject::connect(a, &QAction::toggled, header, [header, name, c, text](bool on) {
                    setChoice(name, text, on);
                    header->setSectionHidden(c, !on);
                });
            }
            menu.addSeparator();
            menu.addAction(QObject::tr("Show all, fitted to their contents"), header,
                           [header, name] {
                               QSettings().remove("columns/" + name);
                               for (int c = 1; c < header->count(); ++c)
                                   setChoice(name, headerText(header, c), true);
                               auto *view = qobject_cast<QAbstractItemView *>(header->parent());
                               for (int c = 0; c < header->count(); ++c)
                                   header->setSectionHidden(c, false);
                               if (view)
                                   fitColumns(view, header, name,
                                              header->sectionResizeMode(0) == QHeaderView::Stretch);
                           });
            menu.exec(header->viewport()->mapToGlobal(pos));
        });
}

void setupCostView(QAbstractItemView *view, CostProxy *proxy, const QString &name,
                   const QStringList &hidden) {
    view->setObjectName(name);
    view->setModel(proxy);
    QHeaderView *h = nullptr;
    if (auto *tree = qobject_cast<QTreeView *>(view))
        h = tree->header();
    else if (auto *table = qobject_cast<QTableView *>(view))
        h = table->horizontalHeader();
    h->setProperty(kHiddenUnlessChosen, hidden);
    keepColumnChoices(h, name);
    // After the rows are in (a new profile, new columns); a view that is
    // not shown (another page) when they come is fitted when it is: sizing
    // every page's columns from their cells took the GUI thread 50-60 ms
    // after each new profile.
    auto fit = [view, h, name] {
        if (view->isVisible())
            fitColumns(view, h, name, true);
        else
            view->setProperty(kFitWhenShown, true);
    };
    view->installEventFilter(new ShowWatch(view, [view, h, name] {
        if (view->property(kFitWhenShown).toBool()) {
            view->setProperty(kFitWhenShown, false);
            fitColumns(view, h, name, true);
        }
    }));
    QObject::connect(proxy, &QAbstractItemModel::modelReset, view,
                     [view, fit] { QTimer::singleShot(0, view, fit); });
    view->setItemDelegate(new CostDelegate(view));
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    // Unsorted until the first profile is sorted by its event
    // (sortByEvent): not first by name, which is wasted work on 100,000
    // functions.
    h->setSortIndicator(-1, Qt::DescendingOrder);
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
