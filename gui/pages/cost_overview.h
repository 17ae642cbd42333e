// SPDX-License-Identifier: MIT
// The scroll-bar overview of the source page: a narrow strip beside the
// source where each line with cost is a tick at its place in the file,
// as dark as its share of the function's hottest line; a click scrolls
// the source there.
#pragma once

#include <QWidget>

#include <vector>

namespace cpcprof::gui {

class CostOverview : public QWidget {
    Q_OBJECT
  public:
    explicit CostOverview(QWidget *parent = nullptr);
    // One weight per row (0 = no cost); rows are the source's.
    void setWeights(std::vector<double> weights);
    const std::vector<double> &weights() const { return weights_; }
    QSize sizeHint() const override { return {16, 100}; }
    // The row a click at y goes to.
    int rowAt(int y) const;

  signals:
    void rowClicked(int row);

  protected:
    void paintEvent(QPaintEvent *) override;
    void mousePressEvent(QMouseEvent *) override;

  private:
    std::vector<double> weights_;
    double max_ = 0;
};

} // namespace cpcprof::gui
