// SPDX-License-Identifier: MIT
#include "gui/pages/tree_page.h"

#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/filter_bar.h"
#include "gui/pages/page_util.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace cpcprof::gui {

namespace {
constexpr size_t kMaxExpandedRows = 5000;
constexpr int kMaxExpandedRoots = 50;

QString collapse_tip(bool comparing) {
    return comparing ? TreePage::tr("Not while comparing: the comparison matches the call paths "
                                    "as recorded")
                     : TreePage::tr("A function's calls of itself as one node (f > f > g as "
                                    "f > g), its callees under the outermost call");
}
} // namespace

TreePage::TreePage(Kind kind, QWidget *parent)
    : QWidget(parent), kind_(kind), model_(new CostTreeModel(this)), proxy_(new CostProxy(this)),
      filter_(new FilterBar(this)), message_(new QLabel(this)), view_(new QTreeView(this)) {
    proxy_->setSourceModel(model_);
    setupCostView(view_, proxy_, kind == Kind::TopDown ? "topDown" : "bottomUp");
    message_->setWordWrap(true);
    message_->hide();
    auto *layout = new QVBoxLayout(this);
    if (kind == Kind::TopDown) {
        collapse_ = new QCheckBox(tr("Collapse recursion"), this);
        collapse_->setObjectName("treeCollapse");
        collapse_->setToolTip(collapse_tip(false));
        connect(collapse_, &QCheckBox::toggled, this, [this] { setProfile(profile_); });
        auto *row = new QHBoxLayout;
        row->addWidget(filter_, 1);
        row->addWidget(collapse_);
        layout->addLayout(row);
    } else {
        layout->addWidget(filter_);
    }
    layout->addWidget(message_);
    layout->addWidget(view_);
    connect(filter_, &FilterBar::changed, this, &TreePage::applyFilter);
    connect(view_, &QTreeView::doubleClicked, this, [this](const QModelIndex &i) {
        if (i.isValid())
            emit functionActivated(i.data(FunctionRole).toUInt());
    });
    connect(view_, &QTreeView::customContextMenuRequested, this, &TreePage::contextMenu);
}

QString TreePage::error() const {
    return QString::fromStdString(model_->tree().tree ? std::string() : model_->tree().error);
}

void TreePage::setProfile(ProfilePtr profile) {
    if (profile != profile_)
        collapsed_ = {};
    profile_ = profile;
    if (!profile) {
        model_->setTree({});
        message_->hide();
        filter_->describe(*proxy_, event_); // nothing to state
        return;
    }
    const bool comparing = model_->diff() && model_->diff()->now == profile;
    if (collapse_) {
        collapse_->setEnabled(!comparing);
        collapse_->setToolTip(collapse_tip(comparing));
    }
    if (kind_ == Kind::BottomUp) {
        model_->setTree(bottom_up_tree(profile));
    } else if (collapse_->isChecked() && !comparing) {
        if (!collapsed_.tree)
            collapsed_ = collapsed_top_down_tree(profile);
        model_->setTree(collapsed_);
    } else {
        model_->setTree(top_down_tree(profile));
    }
    message_->setText(error());
    message_->setVisible(!error().isEmpty());
    if (profile->query && size_t(event_) >= profile->query->events().size())
        event_ = 0;
    sortByEvent(model_, view_, event_, CostColumn::Kind::Total);
    filter_->describe(*proxy_, event_); // the proxy re-applied the filter on the reset
    expandSome();
}

void TreePage::expandSome() {
    // Every match in view when there are few enough rows to open at
    // once; else the roots, when they are few.
    if (proxy_->search() && proxy_->keptRows() <= kMaxExpandedRows)
        view_->expandAll();
    else if (proxy_->rowCount() <= kMaxExpandedRoots)
        view_->expandToDepth(0);
}

void TreePage::setEvent(int event) {
    event_ = event;
    sortByEvent(model_, view_, event, CostColumn::Kind::Total);
    filter_->describe(*proxy_, event);
}

void TreePage::selectFunction(uint32_t fn) {
    uint32_t node = heaviest_node(model_->tree(), fn);
    if (node == 0)
        return;
    reveal(view_, shownIndex(filter_, proxy_, model_->indexOfNode(node), event_));
}

void TreePage::applyFilter() {
    filter_->apply({proxy_}, event_);
    expandSome();
}

void TreePage::contextMenu(const QPoint &pos) {
    functionMenu(
        view_, pos,
        {{tr("Show elsewhere"),
          [this](const QModelIndex &, uint32_t fn) { emit functionActivated(fn); }},
         {tr("Expand all below"),
          [this](const QModelIndex &row, uint32_t) { view_->expandRecursively(row); }},
         {tr("Keep only stacks through this function"),
          [this](const QModelIndex &, uint32_t fn) { emit filterByFunction(fn, true); }},
         {tr("Hide stacks through this function"),
          [this](const QModelIndex &, uint32_t fn) { emit filterByFunction(fn, false); }}});
}

} // namespace cpcprof::gui
