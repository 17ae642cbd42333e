// SPDX-License-Identifier: MIT
#include "gui/pages/hotspots_page.h"

#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/table_model.h"
#include "gui/pages/filter_bar.h"
#include "gui/pages/page_util.h"

#include <QTableView>
#include <QVBoxLayout>

namespace cpcprof::gui {

HotspotsPage::HotspotsPage(QWidget *parent)
    : QWidget(parent), model_(new HotspotTableModel(this)), proxy_(new CostProxy(this)),
      filter_(new FilterBar(this)), view_(new QTableView(this)) {
    proxy_->setSourceModel(model_);
    setupCostView(view_, proxy_, "hotspots");
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(filter_);
    layout->addWidget(view_);
    connect(filter_, &FilterBar::changed, this, [this] { filter_->apply({proxy_}, event_); });
    connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        if (i.isValid())
            emit functionActivated(i.data(FunctionRole).toUInt());
    });
    connect(view_, &QTableView::customContextMenuRequested, this, [this](const QPoint &pos) {
        functionMenu(
            view_, pos,
            {{tr("Show elsewhere"),
              [this](const QModelIndex &, uint32_t fn) { emit functionActivated(fn); }},
             {tr("Keep only stacks through this function"),
              [this](const QModelIndex &, uint32_t fn) { emit filterByFunction(fn, true); }},
             {tr("Hide stacks through this function"),
              [this](const QModelIndex &, uint32_t fn) { emit filterByFunction(fn, false); }}});
    });
}

void HotspotsPage::setProfile(ProfilePtr profile) {
    if (profile && profile->query && size_t(event_) >= profile->query->events().size())
        event_ = 0;
    model_->setProfile(std::move(profile));
    setEvent(event_); // the proxy re-applied the filter on the reset
}

void HotspotsPage::setEvent(int event) {
    event_ = event;
    sortByEvent(model_, view_, event, CostColumn::Kind::Self);
    filter_->describe(*proxy_, event);
}

void HotspotsPage::selectFunction(uint32_t fn) {
    int row = model_->rowOfFunction(fn);
    if (row < 0)
        return;
    reveal(view_, shownIndex(filter_, proxy_, model_->index(row, 0), event_));
}

} // namespace cpcprof::gui
