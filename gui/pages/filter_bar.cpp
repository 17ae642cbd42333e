// SPDX-License-Identifier: MIT
#include "gui/pages/filter_bar.h"

#include "gui/itemmodels/cost_proxy.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace cpcprof::gui {

FilterBar::FilterBar(QWidget *parent)
    : QWidget(parent), edit_(new QLineEdit(this)), regex_(new QCheckBox(tr("Regex"), this)),
      status_(new QLabel(this)) {
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    edit_->setPlaceholderText(tr("Filter by function name"));
    edit_->setClearButtonEnabled(true);
    layout->addWidget(edit_, 2);
    layout->addWidget(regex_);
    layout->addWidget(status_, 3);
    connect(edit_, &QLineEdit::textChanged, this, &FilterBar::changed);
    connect(regex_, &QCheckBox::toggled, this, &FilterBar::changed);
}

bool FilterBar::apply(const std::vector<CostProxy *> &proxies, int event) {
    for (CostProxy *p : proxies) {
        QString error;
        if (!p->setFilter(edit_->text(), regex_->isChecked(), &error)) {
            status_->setText(error);
            status_->setStyleSheet(QStringLiteral("color: red"));
            return false;
        }
    }
    status_->setStyleSheet({});
    if (!proxies.empty())
        describe(*proxies.front(), event);
    return true;
}

void FilterBar::describe(const CostProxy &proxy, int event) {
    const auto &s = proxy.search();
    auto *model = qobject_cast<const CostModel *>(proxy.sourceModel());
    if (!s || !model || !model->profile() || !model->profile()->query) {
        status_->clear();
        return;
    }
    const analysis::Query &q = *model->profile()->query;
    QString name = size_t(event) < q.events().size()
                       ? QString::fromStdString(q.events()[size_t(event)].name)
                       : QString();
    auto share = s->share(q, event);
    status_->setText(
        tr("%n function(s) match: %1 of %2 (%3 samples)", "", int(s->functions.size()))
            .arg(share ? QString::number(*share * 100, 'f', 2) + QLatin1Char('%') : tr("none"),
                 name)
            .arg(s->total.samples));
}

void FilterBar::clear(const std::vector<CostProxy *> &proxies, int event) {
    edit_->blockSignals(true);
    edit_->clear();
    edit_->blockSignals(false);
    apply(proxies, event);
}

} // namespace cpcprof::gui
