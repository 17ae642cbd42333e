// SPDX-License-Identifier: MIT
// The Caller/Callee page: a table of functions (with a filter box) and,
// for the one selected, the tree of its callers (who calls it, and who
// calls them) and the tree of its callees, as `cpcprof report --callers /
// --callees` prints them; every tree with self and total of every event.
// Double-clicking a caller or callee makes it the selected function.
#pragma once

#include "gui/model/profile_data.h"

#include <QWidget>

#include <optional>

class QLabel;
class QTableView;
class QTreeView;

namespace cpcprof::gui {

class CostProxy;
class CostTreeModel;
class FilterBar;
class HotspotTableModel;

class CallerCalleePage : public QWidget {
    Q_OBJECT
  public:
    explicit CallerCalleePage(QWidget *parent = nullptr);

    void setProfile(cpcprof::gui::ProfilePtr profile); // nullptr = clear
    void setEvent(int event);
    // Selects fn in the table and shows its callers and callees: the trees
    // are made off the GUI thread and shown when ready (treesShown).
    void selectFunction(uint32_t fn);
    // The function shown; nothing before one is chosen.
    std::optional<uint32_t> function() const { return function_; }

    QTableView *functionsView() const { return functions_; }
    HotspotTableModel *functionsModel() const { return table_; }
    CostTreeModel *callersModel() const { return callers_; }
    CostTreeModel *calleesModel() const { return callees_; }
    QTreeView *callersView() const { return callers_view_; }
    QTreeView *calleesView() const { return callees_view_; }
    FilterBar *filterBar() const { return filter_; }

  signals:
    void functionActivated(uint32_t fn);
    // The callers and callees trees of fn are in the models.
    void treesShown(uint32_t fn);

  private:
    void show(uint32_t fn);
    void sortTrees();
    int event_ = 0;
    uint64_t job_ = 0; // the latest request for trees; older results are dropped
    ProfilePtr profile_;
    std::optional<uint32_t> function_;
    HotspotTableModel *table_;
    CostProxy *table_proxy_;
    CostTreeModel *callers_, *callees_;
    CostProxy *callers_proxy_, *callees_proxy_;
    FilterBar *filter_;
    QTableView *functions_;
    QLabel *callers_label_, *callees_label_;
    QTreeView *callers_view_, *callees_view_;
};

} // namespace cpcprof::gui
