// SPDX-License-Identifier: MIT
#include "gui/pages/caller_callee_page.h"

#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/filter_bar.h"
#include "gui/pages/page_util.h"

#include <QFutureWatcher>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace cpcprof::gui {

namespace {

QWidget *titled(QLabel *label, QWidget *view, QWidget *parent) {
    auto *w = new QWidget(parent);
    auto *l = new QVBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(label);
    l->addWidget(view);
    return w;
}

} // namespace

CallerCalleePage::CallerCalleePage(QWidget *parent)
    : QWidget(parent), table_(new HotspotTableModel(this)), table_proxy_(new CostProxy(this)),
      callers_(new CostTreeModel(this)), callees_(new CostTreeModel(this)),
      callers_proxy_(new CostProxy(this)), callees_proxy_(new CostProxy(this)),
      filter_(new FilterBar(this)), functions_(new QTableView(this)),
      callers_label_(new QLabel(tr("Callers"), this)),
      callees_label_(new QLabel(tr("Callees"), this)), callers_view_(new QTreeView(this)),
      callees_view_(new QTreeView(this)) {
    table_proxy_->setSourceModel(table_);
    callers_proxy_->setSourceModel(callers_);
    callees_proxy_->setSourceModel(callees_);
    // Half a page wide: the functions' names and costs; module and
    // location (the Hotspots page's) are a right click on the header away.
    setupCostView(functions_, table_proxy_, "callerCalleeFunctions",
                  {table_->headerData(1, Qt::Horizontal).toString(),
                   table_->headerData(2, Qt::Horizontal).toString()});
    setupCostView(callers_view_, callers_proxy_, "callers");
    setupCostView(callees_view_, callees_proxy_, "callees");

    auto *left = new QWidget(this);
    auto *ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    ll->addWidget(filter_);
    ll->addWidget(functions_);
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(titled(callers_label_, callers_view_, right));
    right->addWidget(titled(callees_label_, callees_view_, right));
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);

    connect(filter_, &FilterBar::changed, this, [this] { filter_->apply({table_proxy_}, event_); });
    connect(functions_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    show(current.data(FunctionRole).toUInt());
            });
    connect(functions_, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        if (i.isValid())
            emit functionActivated(i.data(FunctionRole).toUInt());
    });
    for (QTreeView *v : {callers_view_, callees_view_}) {
        connect(v, &QTreeView::doubleClicked, this, [this](const QModelIndex &i) {
            if (i.isValid())
                selectFunction(i.data(FunctionRole).toUInt());
        });
    }
    for (QAbstractItemView *v :
         std::initializer_list<QAbstractItemView *>{functions_, callers_view_, callees_view_}) {
        connect(v, &QAbstractItemView::customContextMenuRequested, this, [this, v](QPoint pos) {
            functionMenu(v, pos,
                         {{tr("Show here"),
                           [this](const QModelIndex &, uint32_t fn) { selectFunction(fn); }},
                          {tr("Show elsewhere"), [this](const QModelIndex &, uint32_t fn) {
                               emit functionActivated(fn);
                           }}});
        });
    }
}

void CallerCalleePage::setProfile(ProfilePtr profile) {
    profile_ = std::move(profile);
    function_.reset();
    ++job_; // a tree still being made is of the old profile
    if (profile_ && profile_->query && size_t(event_) >= profile_->query->events().size())
        event_ = 0;
    table_->setProfile(profile_);
    callers_->setTree({});
    callees_->setTree({});
    callers_label_->setText(tr("Callers"));
    callees_label_->setText(tr("Callees"));
    setEvent(event_); // the proxy re-applied the filter on the reset
    // Start on the function with the most self cost: who calls the hot spot.
    if (profile_ && profile_->hotspots && !profile_->hotspots->empty()) {
        const analysis::HotspotRow *top = nullptr;
        auto self = [this](const analysis::HotspotRow &r) {
            return size_t(event_) < r.self.values.size() ? r.self.values[event_] : r.self.samples;
        };
        for (const analysis::HotspotRow &r : *profile_->hotspots)
            if (!top || self(r) > self(*top))
                top = &r;
        selectFunction(top->function_index);
    }
}

void CallerCalleePage::setEvent(int event) {
    event_ = event;
    sortByEvent(table_, functions_, event, CostColumn::Kind::Total);
    filter_->describe(*table_proxy_, event);
    sortTrees();
}

void CallerCalleePage::sortTrees() {
    sortByEvent(callers_, callers_view_, event_, CostColumn::Kind::Total);
    sortByEvent(callees_, callees_view_, event_, CostColumn::Kind::Total);
}

void CallerCalleePage::selectFunction(uint32_t fn) {
    int row = table_->rowOfFunction(fn);
    if (row < 0)
        return;
    // The current row's change shows its callers and callees.
    reveal(functions_, shownIndex(filter_, table_proxy_, table_->index(row, 0), event_));
    if (function_ != fn)
        show(fn);
}

void CallerCalleePage::show(uint32_t fn) {
    if (!profile_ || function_ == fn)
        return;
    function_ = fn;
    QString name = QString::fromStdString(profile_->query->functions()[fn].name);
    callers_label_->setText(tr("Callers of %1: computing...").arg(name));
    callees_label_->setText(tr("Callees of %1: computing...").arg(name));
    // Off the GUI thread, on the shared (immutable) profile: each tree is
    // a walk over the profile's frame nodes, a callers tree up to
    // CallTree::kMaxReversedNodes nodes.  A later request makes this
    // one's result stale: it is dropped.
    const uint64_t job = ++job_;
    auto *watcher = new QFutureWatcher<std::pair<CostTree, CostTree>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, job, fn, name] {
        watcher->deleteLater();
        if (job != job_)
            return;
        auto [callers, callees] = watcher->result();
        callers_label_->setText(callers.tree ? tr("Callers of %1").arg(name)
                                             : QString::fromStdString(callers.error));
        callees_label_->setText(callees.tree ? tr("Callees of %1").arg(name)
                                             : QString::fromStdString(callees.error));
        callers_->setTree(std::move(callers));
        callees_->setTree(std::move(callees));
        callers_->setDiff(table_->diff()); // columns for the trees' matches
        callees_->setDiff(table_->diff());
        sortTrees();
        callers_view_->expandToDepth(1);
        callees_view_->expandToDepth(1);
        emit treesShown(fn);
    });
    watcher->setFuture(QtConcurrent::run([profile = profile_, fn, diff = table_->diff()] {
        std::pair trees{callers_tree(profile, fn), callees_tree(profile, fn)};
        auto match = [&](CostTree &t, bool callers) {
            if (diff && diff->now == profile && t.tree) // comparing: the same tree in the base
                t.base_match = std::make_shared<const analysis::PathMatch>(
                    match_function_tree(*diff, *t.tree, fn, callers));
        };
        match(trees.first, true);
        match(trees.second, false);
        return trees;
    }));
}

} // namespace cpcprof::gui
