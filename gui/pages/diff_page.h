// SPDX-License-Identifier: MIT
// The Comparison page, shown while comparing with a base profile: what
// is compared (both files, samples, common events), `cpcprof diff`'s
// table of functions (diff_table_model.h) sortable on every column, and
// a choice of which functions to list: all, only in BASE (the frames the
// flame graph of NEW cannot show), only in NEW, grown, shrunk.
#pragma once

#include "gui/model/diff_data.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace cpcprof::gui {

class DiffTableModel;

class DiffPage : public QWidget {
    Q_OBJECT
  public:
    enum Show { All, OnlyInBase, OnlyInNew, Grown, Shrunk };

    explicit DiffPage(QWidget *parent = nullptr);

    void setDiff(DiffPtr diff); // nullptr clears
    // event: index in NEW's events; rows in cpcprof diff's order for it.
    void setEvent(int event);
    void setShow(Show show);

    DiffTableModel *model() const { return model_; }
    QSortFilterProxyModel *proxy() const { return proxy_; }
    QTableView *view() const { return view_; }
    QString description() const;

  signals:
    // A function of NEW double-clicked (functions only in BASE have none).
    void functionActivated(uint32_t fn);

  private:
    void describe();
    DiffPtr diff_;
    size_t common_ = 0;
    DiffTableModel *model_;
    QSortFilterProxyModel *proxy_;
    QComboBox *show_;
    QLabel *about_;
    QTableView *view_;
};

} // namespace cpcprof::gui
