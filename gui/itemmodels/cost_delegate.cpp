// SPDX-License-Identifier: MIT
#include "gui/itemmodels/cost_delegate.h"

#include "gui/itemmodels/cost_model.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

#include <cmath>

namespace cpcprof::gui {

CostDelegate::CostDelegate(QObject *parent) : QStyledItemDelegate(parent) {}

QColor CostDelegate::heatColour(double share) {
    // Pale yellow for a small share to orange-red for all of it, light
    // enough for black text on top.
    share = std::clamp(share, 0.0, 1.0);
    return QColor::fromHsvF(float((1.0 - share) * 55.0 / 360.0), float(0.25 + 0.45 * share), 1.0f);
}

QRect CostDelegate::barRect(const QRect &cell, double share) {
    share = std::clamp(share, 0.0, 1.0);
    QRect r = cell.adjusted(1, 2, -1, -2);
    r.setWidth(int(std::lround(r.width() * share)));
    return r;
}

void CostDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                         const QModelIndex &index) const {
    QVariant share = index.data(ShareRole);
    if (!share.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    // Background (selection) first, then the bar, then the text over it.
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    QString text = opt.text;
    opt.text.clear();
    const QWidget *w = opt.widget;
    QStyle *style = w ? w->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, w);
    QRect bar = barRect(opt.rect, share.toDouble());
    // On a selected row the text is drawn in the highlight's text colour
    // (white), unreadable on a pale bar: the bar is a strip under it.
    if (option.state & QStyle::State_Selected)
        bar.setTop(bar.bottom() - 2);
    if (bar.width() > 0) {
        painter->save();
        painter->fillRect(bar, heatColour(share.toDouble()));
        painter->restore();
    }
    opt.text = text;
    opt.backgroundBrush = Qt::NoBrush;
    opt.state &= ~QStyle::State_Selected;
    QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, w);
    painter->save();
    painter->setPen(option.state & QStyle::State_Selected
                        ? opt.palette.color(QPalette::HighlightedText)
                        : opt.palette.color(QPalette::Text));
    painter->drawText(textRect.adjusted(2, 0, -2, 0), int(opt.displayAlignment), text);
    painter->restore();
}

} // namespace cpcprof::gui
