// SPDX-License-Identifier: MIT
// Paints a cost bar behind the text of cells that have a share
// (ShareRole: an event column's share of the run's total), as wide as
// that share of the cell and coloured by it (heatColour).
#pragma once

#include <QColor>
#include <QStyledItemDelegate>

namespace cpcprof::gui {

class CostDelegate : public QStyledItemDelegate {
    Q_OBJECT
  public:
    explicit CostDelegate(QObject *parent = nullptr);
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;

    // The bar's rectangle within cell for a share in [0, 1] (clamped).
    static QRect barRect(const QRect &cell, double share);
    // The bar's colour for a share in [0, 1] (clamped): pale yellow to
    // orange-red, light enough for the text on it.
    static QColor heatColour(double share);
};

} // namespace cpcprof::gui
