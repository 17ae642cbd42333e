// SPDX-License-Identifier: MIT
// The Top-down and Bottom-up pages: the profile's call tree (callees
// under callers, or the inverted tree: callers under the innermost
// functions) with self and total of every event, derived ratios, cost
// bars, sorting on every column and a filter box that keeps the
// ancestors of matching functions.  Top-down has "Collapse recursion"
// (a function's calls of itself as one node, as the flame graph draws
// them; not while comparing, which matches the tree as recorded).
#pragma once

#include "gui/model/cost_tree.h"
#include "gui/model/profile_data.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QTreeView;

namespace cpcprof::gui {

class CostProxy;
class CostTreeModel;
class FilterBar;

class TreePage : public QWidget {
    Q_OBJECT
  public:
    enum class Kind { TopDown, BottomUp };
    explicit TreePage(Kind kind, QWidget *parent = nullptr);

    void setProfile(cpcprof::gui::ProfilePtr profile); // nullptr = clear
    // Index in query->events(): sorts by its total, states the filter's share of it.
    void setEvent(int event);
    // Reveals and selects the node of fn with the most samples.
    void selectFunction(uint32_t fn);

    Kind kind() const { return kind_; }
    QTreeView *view() const { return view_; }
    CostTreeModel *model() const { return model_; }
    CostProxy *proxy() const { return proxy_; }
    FilterBar *filterBar() const { return filter_; }
    QCheckBox *collapseBox() const { return collapse_; } // nullptr on Bottom-up
    // Why there is no tree (a bottom-up tree too large to build); "" if there is one.
    QString error() const;

  signals:
    void functionActivated(uint32_t fn);
    // Keep only the stacks through fn (keep) or hide them: a filter step.
    void filterByFunction(uint32_t fn, bool keep);

  private:
    void applyFilter();
    void expandSome();
    void contextMenu(const QPoint &pos);
    Kind kind_;
    int event_ = 0;
    CostTreeModel *model_;
    CostProxy *proxy_;
    FilterBar *filter_;
    QLabel *message_;
    QTreeView *view_;
    QCheckBox *collapse_ = nullptr;
    ProfilePtr profile_;
    CostTree collapsed_; // of profile_, made when first asked
};

} // namespace cpcprof::gui
