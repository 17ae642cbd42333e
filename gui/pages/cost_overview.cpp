// SPDX-License-Identifier: MIT
#include "gui/pages/cost_overview.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace cpcprof::gui {

CostOverview::CostOverview(QWidget *parent) : QWidget(parent) {
    setObjectName("costOverview");
    setFixedWidth(16);
    setToolTip(tr("Where the function's cost lies in the file; click to go there"));
}

void CostOverview::setWeights(std::vector<double> weights) {
    weights_ = std::move(weights);
    max_ = weights_.empty() ? 0 : *std::max_element(weights_.begin(), weights_.end());
    update();
}

int CostOverview::rowAt(int y) const {
    if (weights_.empty() || height() <= 0)
        return -1;
    return std::clamp(int(double(y) / height() * double(weights_.size())), 0,
                      int(weights_.size()) - 1);
}

void CostOverview::paintEvent(QPaintEvent *) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().mid().color());
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    if (weights_.empty() || max_ <= 0)
        return;
    const double per_row = double(height()) / double(weights_.size());
    for (size_t i = 0; i < weights_.size(); ++i) {
        if (weights_[i] <= 0)
            continue;
        int y = int(double(i) * per_row);
        int h = std::max(3, int(per_row));
        QColor c(220, 60, 0);
        c.setAlphaF(0.25 + 0.75 * weights_[i] / max_);
        p.fillRect(QRect(2, std::min(y, height() - h), width() - 4, h), c);
    }
}

void CostOverview::mousePressEvent(QMouseEvent *e) {
    int row = rowAt(int(e->position().y()));
    if (row >= 0)
        emit rowClicked(row);
}

} // namespace cpcprof::gui
