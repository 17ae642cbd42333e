// SPDX-License-Identifier: MIT
// The Hotspots page: a flat table of functions (module, file:line of the
// hottest line) with self and total of every event and derived ratios,
// as `cpcprof report` lists them; sorting on every column, cost bars and
// a filter box.
#pragma once

#include "gui/model/profile_data.h"

#include <QWidget>

class QTableView;

namespace cpcprof::gui {

class CostProxy;
class FilterBar;
class HotspotTableModel;

class HotspotsPage : public QWidget {
    Q_OBJECT
  public:
    explicit HotspotsPage(QWidget *parent = nullptr);

    void setProfile(cpcprof::gui::ProfilePtr profile); // nullptr = clear
    // Sorts by event's self cost (report's default order); the filter's share.
    void setEvent(int event);
    void selectFunction(uint32_t fn);

    QTableView *view() const { return view_; }
    HotspotTableModel *model() const { return model_; }
    CostProxy *proxy() const { return proxy_; }
    FilterBar *filterBar() const { return filter_; }

  signals:
    void functionActivated(uint32_t fn);
    // Keep only the stacks through fn (keep) or hide them: a filter step.
    void filterByFunction(uint32_t fn, bool keep);

  private:
    int event_ = 0;
    HotspotTableModel *model_;
    CostProxy *proxy_;
    FilterBar *filter_;
    QTableView *view_;
};

} // namespace cpcprof::gui
