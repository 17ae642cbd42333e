// SPDX-License-Identifier: MIT
#include "gui/pages/diff_page.h"

#include "gui/itemmodels/cost_model.h" // SortRole
#include "gui/itemmodels/diff_table_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

namespace cpcprof::gui {

namespace {

// Keeps the rows the page's choice shows.
class ShowProxy : public QSortFilterProxyModel {
  public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    DiffPage::Show show = DiffPage::All;
    size_t event = 0;
    void refresh() { invalidateRowsFilter(); }

  protected:
    bool filterAcceptsRow(int row, const QModelIndex &) const override {
        auto *m = static_cast<const DiffTableModel *>(sourceModel());
        if (!m->diff() || show == DiffPage::All)
            return true;
        const analysis::FunctionDiff &f = m->diff()->comparison.functions[m->functionAt(row)];
        switch (show) {
        case DiffPage::OnlyInBase:
            return !f.now.present;
        case DiffPage::OnlyInNew:
            return !f.base.present;
        case DiffPage::Grown:
        case DiffPage::Shrunk: {
            auto p = m->diff()->comparison.points(f, event, true);
            return p && (show == DiffPage::Grown ? *p >= 0.005 : *p <= -0.005);
        }
        case DiffPage::All:
            break;
        }
        return true;
    }
};

QString side(const analysis::SideInfo &s) {
    return QObject::tr("%1 (%2 samples)")
        .arg(QString::fromStdString(s.file).toHtmlEscaped(), QLocale().toString(s.samples));
}

QString joined(const std::vector<std::string> &words) {
    QStringList out;
    for (const std::string &w : words)
        out << QString::fromStdString(w).toHtmlEscaped();
    return out.join(", ");
}

} // namespace

DiffPage::DiffPage(QWidget *parent)
    : QWidget(parent), model_(new DiffTableModel(this)), proxy_(new ShowProxy(this)),
      show_(new QComboBox(this)), about_(new QLabel(this)), view_(new QTableView(this)) {
    setObjectName("diffPage");
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(SortRole);
    view_->setObjectName("diffTable");
    view_->setModel(proxy_);
    view_->setSortingEnabled(true);
    view_->sortByColumn(-1, Qt::AscendingOrder); // cpcprof diff's order until a header is clicked
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->verticalHeader()->hide();
    view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Widths from the first rows (the largest changes): bounded work on
    // tables of many thousand functions.
    view_->horizontalHeader()->setResizeContentsPrecision(200);
    about_->setWordWrap(true);
    show_->setObjectName("diffShow");
    show_->addItems({tr("All functions"), tr("Only in base"), tr("Only in new"),
                     tr("Self share grew"), tr("Self share shrank")});
    connect(show_, &QComboBox::currentIndexChanged, this, [this](int i) { setShow(Show(i)); });
    connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex &i) {
        if (!i.isValid() || !diff_)
            return;
        const analysis::FunctionDiff &f =
            diff_->comparison.functions[model_->functionAt(proxy_->mapToSource(i).row())];
        const auto &rows = diff_->function_row;
        for (size_t fn = 0; fn < rows.size(); ++fn)
            if (rows[fn] >= 0 && &diff_->comparison.functions[size_t(rows[fn])] == &f)
                return emit functionActivated(uint32_t(fn));
    });
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(show_);
    bar->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(about_);
    layout->addLayout(bar);
    layout->addWidget(view_);
}

void DiffPage::setDiff(DiffPtr diff) {
    diff_ = std::move(diff);
    common_ = 0;
    static_cast<ShowProxy *>(proxy_)->event = 0;
    model_->setDiff(diff_, 0);
    view_->resizeColumnsToContents();
    describe();
}

void DiffPage::setEvent(int event) {
    if (!diff_ || event < 0 || size_t(event) >= diff_->common.size() || diff_->common[event] < 0)
        return;
    common_ = size_t(diff_->common[size_t(event)]);
    static_cast<ShowProxy *>(proxy_)->event = common_;
    model_->setDiff(diff_, common_);
    describe();
}

void DiffPage::setShow(Show show) {
    if (show_->currentIndex() != show) {
        QSignalBlocker block(show_);
        show_->setCurrentIndex(show);
    }
    static_cast<ShowProxy *>(proxy_)->show = show;
    static_cast<ShowProxy *>(proxy_)->refresh();
    describe();
}

QString DiffPage::description() const {
    return about_->text();
}

void DiffPage::describe() {
    if (!diff_) {
        about_->setText(tr("No base profile: File > Compare With... chooses one."));
        return;
    }
    const analysis::Comparison &c = diff_->comparison;
    size_t gone = 0, added = 0;
    for (const analysis::FunctionDiff &f : c.functions) {
        gone += f.now.present ? 0 : 1;
        added += f.base.present ? 0 : 1;
    }
    QString text = tr("Base: %1<br>New: %2<br>Shares are of each profile's own total; changes in "
                      "percentage points (pp), ordered by the change of %3 as cpcprof diff "
                      "orders them; a change in grey is within noise: the runs' sample counts "
                      "cannot tell it from chance at %8 % confidence (two-proportion z-test). "
                      "%4 functions: %5 only in new, %6 only in base; %7 shown.")
                       .arg(side(c.base), side(c.now),
                            QString::fromStdString(c.events[common_]).toHtmlEscaped())
                       .arg(c.functions.size())
                       .arg(added)
                       .arg(gone)
                       .arg(proxy_->rowCount())
                       .arg(diff_->confidence * 100, 0, 'g', 3);
    if (!c.only_base.empty() || !c.only_new.empty())
        text +=
            tr("<br>Not compared (in one profile only): %1")
                .arg(joined(c.only_base) + (c.only_base.empty() || c.only_new.empty() ? "" : ", ") +
                     joined(c.only_new));
    about_->setText(text);
}

} // namespace cpcprof::gui
