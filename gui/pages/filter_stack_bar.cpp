// SPDX-License-Identifier: MIT
#include "gui/pages/filter_stack_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

namespace cpcprof::gui {

FilterStackBar::FilterStackBar(QWidget *parent)
    : QWidget(parent), crumbs_(new QLabel), count_(new QLabel), back_(new QPushButton(tr("Back"))),
      clear_(new QPushButton(tr("Clear"))) {
    setObjectName("filterStackBar");
    crumbs_->setObjectName("filterCrumbs");
    crumbs_->setTextFormat(Qt::RichText);
    count_->setObjectName("filterCount");
    back_->setObjectName("filterBack");
    back_->setToolTip(tr("Undo the last filter"));
    clear_->setObjectName("filterClear");
    clear_->setToolTip(tr("Show every sample again"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(new QLabel(tr("<b>Filter:</b>")));
    layout->addWidget(crumbs_, 1);
    layout->addWidget(count_);
    layout->addWidget(back_);
    layout->addWidget(clear_);
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, QColor(255, 244, 214));
    setPalette(pal);
    connect(crumbs_, &QLabel::linkActivated, this,
            [this](const QString &link) { emit backTo(size_t(link.toULongLong())); });
    connect(back_, &QPushButton::clicked, this, [this] {
        if (depth_ > 0)
            emit backTo(depth_ - 1);
    });
    connect(clear_, &QPushButton::clicked, this, [this] { emit backTo(0); });
    hide();
}

void FilterStackBar::setSteps(const std::vector<FilterStep> &steps, uint64_t shown,
                              uint64_t loaded) {
    depth_ = steps.size();
    QString rich = QStringLiteral("<a href=\"0\">%1</a>").arg(tr("All samples"));
    plain_ = tr("All samples");
    for (size_t i = 0; i < steps.size(); ++i) {
        QString step = QString::fromStdString(describe(steps[i])).toHtmlEscaped();
        plain_ += " > " + QString::fromStdString(describe(steps[i]));
        // The last step is where the views are: no link.
        rich += " &gt; " +
                (i + 1 == steps.size()
                     ? "<b>" + step + "</b>"
                     : QStringLiteral("<a href=\"%1\">%2</a>").arg(QString::number(i + 1), step));
    }
    crumbs_->setText(rich);
    QLocale locale;
    count_->setText(
        tr("%1 of %2 samples (%3 %)")
            .arg(locale.toString(qulonglong(shown)), locale.toString(qulonglong(loaded)))
            .arg(loaded ? 100.0 * double(shown) / double(loaded) : 0.0, 0, 'f', 1));
    setVisible(!steps.empty());
}

void FilterStackBar::setBusy(bool busy) {
    back_->setEnabled(!busy);
    clear_->setEnabled(!busy);
    if (busy)
        count_->setText(tr("filtering..."));
}

} // namespace cpcprof::gui
