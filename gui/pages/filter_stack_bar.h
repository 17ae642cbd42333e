// SPDX-License-Identifier: MIT
// The bar above the views while filters are in force: the filter stack as
// a breadcrumb ("All samples > 0.250-0.500 s > without thread 101"), each
// step a link back to it, how many of the loaded samples the views show,
// and Back (one step) and Clear.  Hidden without filters.
#pragma once

#include "gui/model/sample_filter.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace cpcprof::gui {

class FilterStackBar : public QWidget {
    Q_OBJECT
  public:
    explicit FilterStackBar(QWidget *parent = nullptr);

    // The steps in force; shown = samples the views show of loaded.
    void setSteps(const std::vector<FilterStep> &steps, uint64_t shown, uint64_t loaded);
    // While a filter is being applied.
    void setBusy(bool busy);
    // The breadcrumb as plain text: "All samples > 0.250-0.500 s".
    QString text() const { return plain_; }
    QPushButton *backButton() const { return back_; }
    QPushButton *clearButton() const { return clear_; }

  signals:
    // Go back to the first depth steps (0: no filter).
    void backTo(size_t depth);

  private:
    QLabel *crumbs_;
    QLabel *count_;
    QPushButton *back_, *clear_;
    QString plain_;
    size_t depth_ = 0;
};

} // namespace cpcprof::gui
