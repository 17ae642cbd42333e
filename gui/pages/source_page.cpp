// SPDX-License-Identifier: MIT
#include "gui/pages/source_page.h"

#include "gui/itemmodels/cost_delegate.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/source_models.h"
#include "gui/pages/cost_overview.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace cpcprof::gui {

namespace {

void setup_table(QTableView *v, const char *name) {
    v->setObjectName(name);
    v->setItemDelegate(new CostDelegate(v));
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::ExtendedSelection);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 4);
    v->horizontalHeader()->setStretchLastSection(true);
    v->setWordWrap(false);
    v->setShowGrid(false);
}

} // namespace

uint32_t selected_function(const QWidget *page) {
    if (!page)
        return UINT32_MAX;
    QList<QAbstractItemView *> views = page->findChildren<QAbstractItemView *>();
    std::stable_partition(views.begin(), views.end(),
                          [](const QAbstractItemView *v) { return v->hasFocus(); });
    for (const QAbstractItemView *v : views) {
        QVariant fn = v->currentIndex().data(FunctionRole);
        if (v->isVisible() && fn.isValid())
            return fn.toUInt();
    }
    return UINT32_MAX;
}

SourcePage::SourcePage(QWidget *parent)
    : QWidget(parent), source_jobs_(this), disasm_jobs_(this), title_(new QLabel(this)),
      status_(new QLabel(this)), disasm_status_(new QLabel(this)),
      source_model_(new SourceLinesModel(this)), disasm_model_(new DisassemblyModel(this)),
      source_view_(new QTableView(this)), disasm_view_(new QTableView(this)),
      overview_(new CostOverview(this)) {
    title_->setObjectName("sourceTitle");
    status_->setObjectName("sourceStatus");
    disasm_status_->setObjectName("disassemblyStatus");
    for (QLabel *l : {title_, status_, disasm_status_}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    showNoFunction();
    setup_table(source_view_, "sourceLines");
    setup_table(disasm_view_, "disassembly");
    source_view_->setModel(source_model_);
    disasm_view_->setModel(disasm_model_);

    auto *left = new QWidget;
    auto *lv = new QVBoxLayout(left);
    lv->setContentsMargins(0, 0, 0, 0);
    lv->addWidget(status_);
    auto *row = new QHBoxLayout;
    row->addWidget(source_view_);
    row->addWidget(overview_);
    lv->addLayout(row);
    auto *right = new QWidget;
    auto *rv = new QVBoxLayout(right);
    rv->setContentsMargins(0, 0, 0, 0);
    rv->addWidget(disasm_status_);
    rv->addWidget(disasm_view_);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(split, 1);

    connect(overview_, &CostOverview::rowClicked, this, [this](int r) {
        source_view_->scrollTo(source_model_->index(r, 0), QAbstractItemView::PositionAtCenter);
    });
    connect(source_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &cur) {
                if (linking_ || !cur.isValid() || !source_model_->view())
                    return;
                selectLine(source_model_->view()->lines[size_t(cur.row())].line);
            });
    connect(disasm_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &cur) {
                if (!linking_ && cur.isValid())
                    selectInstruction(cur.row());
            });
}

void SourcePage::showNoFunction() {
    title_->setText(tr("No function chosen: Show source in the flame graph's context menu, or "
                       "select a row in a tree or table and press Ctrl+U (View > Source of the "
                       "Selected Function)"));
    status_->clear();
    disasm_status_->clear();
}

void SourcePage::setProfile(ProfilePtr profile) {
    // The function shown, by name and module: a reloaded file (or another
    // run of the same program) shows it again; any other file, nothing.
    std::optional<std::pair<std::string, std::string>> shown;
    if (profile_ && profile_->query && function_ < profile_->query->functions().size()) {
        const analysis::FunctionInfo &f = profile_->query->functions()[function_];
        shown.emplace(f.name, f.module);
    }
    profile_ = std::move(profile);
    function_ = UINT32_MAX;
    source_jobs_.cancel();
    disasm_jobs_.cancel();
    source_model_->setView(nullptr, {}, nullptr);
    disasm_model_->setView(nullptr, {});
    overview_->setWeights({});
    showNoFunction();
    if (profile_ && profile_->query && size_t(event_) >= profile_->query->events().size())
        event_ = 0;
    if (shown && profile_ && profile_->query) {
        const auto &functions = profile_->query->functions();
        for (size_t i = 0; i < functions.size(); ++i)
            if (functions[i].name == shown->first && functions[i].module == shown->second)
                return showFunction(uint32_t(i));
    }
}

void SourcePage::setEvent(int event) {
    event_ = event;
    if (function_ != UINT32_MAX)
        request(); // the hot lines follow the event
}

void SourcePage::setRoots(analysis::SourceRoots roots) {
    roots_ = std::move(roots);
    if (function_ != UINT32_MAX)
        request();
}

void SourcePage::showFunction(uint32_t fn) {
    if (!profile_ || !profile_->query || fn >= profile_->query->functions().size())
        return;
    if (fn == function_ && source_model_->view() && source_model_->view()->function == fn)
        return;
    function_ = fn;
    request();
}

void SourcePage::request() {
    const analysis::Query &q = *profile_->query;
    const analysis::FunctionInfo &info = q.functions()[function_];
    title_->setText(tr("<b>%1</b> &nbsp; %2")
                        .arg(QString::fromStdString(info.name).toHtmlEscaped(),
                             QString::fromStdString(info.module).toHtmlEscaped()));
    status_->setText(tr("Reading the source ..."));
    disasm_status_->setText(tr("Disassembling (objdump) ..."));
    ProfilePtr p = profile_;
    uint32_t fn = function_;
    int event = event_;
    analysis::SourceRoots roots = roots_;
    source_jobs_.run(
        [p, fn, roots, event] {
            return std::make_shared<const SourceView>(source_view(*p->query, fn, roots, event));
        },
        [this, p](const std::shared_ptr<const SourceView> &v) {
            source_model_->setView(v, cost_columns(*p->query), p->query.get());
            QString where;
            if (!v->shown_path.empty())
                where = QString::fromStdString(v->shown_path);
            else
                where = tr("%1 not shown: %2")
                            .arg(QString::fromStdString(v->stored_path.empty() ? "source"
                                                                               : v->stored_path),
                                 QString::fromStdString(v->why_not));
            if (!v->other_files.empty()) {
                QStringList others;
                for (const std::string &f : v->other_files)
                    others << QString::fromStdString(f);
                where += tr(" (it also has costs in %1)").arg(others.join(", "));
            }
            status_->setText(where);
            source_view_->resizeColumnsToContents();
            fillOverview();
            // Show the hottest line, and its instructions when they are in.
            for (const SourceLine &l : v->lines)
                if (l.hot_rank == 1) {
                    selectLine(l.line);
                    // Again once the rows have their final geometry.
                    QTimer::singleShot(0, this, [this, fn = v->function, n = l.line] {
                        const SourceView *now = source_model_->view();
                        int row = now && now->function == fn ? now->rowOfLine(n) : -1;
                        if (row >= 0)
                            source_view_->scrollTo(source_model_->index(row, 0),
                                                   QAbstractItemView::PositionAtCenter);
                    });
                }
            emit sourceShown();
        });
    disasm_jobs_.run(
        [p, fn] {
            return std::make_shared<const DisassemblyView>(disassembly_view(*p->query, fn));
        },
        [this, p](const std::shared_ptr<const DisassemblyView> &d) {
            disasm_model_->setView(d, cost_columns(*p->query));
            disasm_status_->setText(
                d->code.error.empty()
                    ? tr("%1 in %2: %n instructions", "", int(d->code.instructions.size()))
                          .arg(QString::fromStdString(d->code.symbol),
                               QString::fromStdString(d->code.module))
                    : tr("No disassembly: %1").arg(QString::fromStdString(d->code.error)));
            disasm_view_->resizeColumnsToContents();
            QModelIndex cur = source_view_->currentIndex();
            const SourceView *v = source_model_->view();
            if (cur.isValid() && v && v->function == d->function)
                selectLine(v->lines[size_t(cur.row())].line);
            emit disassemblyShown();
        });
}

std::string SourcePage::functionName() const {
    if (!profile_ || !profile_->query || function_ >= profile_->query->functions().size())
        return {};
    return profile_->query->functions()[function_].name;
}

void SourcePage::fillOverview() {
    const SourceView *v = source_model_->view();
    std::vector<double> w;
    if (v)
        for (const SourceLine &l : v->lines)
            w.push_back(size_t(event_) < l.total.values.size() ? double(l.total.values[event_])
                                                               : 0.0);
    overview_->setWeights(std::move(w));
}

void SourcePage::selectLine(uint32_t n) {
    const SourceView *v = source_model_->view();
    if (!v)
        return;
    linking_ = true;
    int row = v->rowOfLine(n);
    if (row >= 0 && source_view_->currentIndex().row() != row) {
        source_view_->setCurrentIndex(source_model_->index(row, 0));
        source_view_->selectRow(row);
        source_view_->scrollTo(source_model_->index(row, 0), QAbstractItemView::PositionAtCenter);
    }
    std::vector<int> rows = disasm_model_->rowsOfLine(v->stored_path, n, functionName());
    QItemSelection sel;
    for (int r : rows)
        sel.select(disasm_model_->index(r, 0),
                   disasm_model_->index(r, disasm_model_->columnCount() - 1));
    disasm_view_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
    if (!rows.empty())
        disasm_view_->scrollTo(disasm_model_->index(rows.front(), 0),
                               QAbstractItemView::PositionAtCenter);
    linking_ = false;
}

void SourcePage::selectInstruction(int row) {
    const DisassemblyView *d = disasm_model_->view();
    if (!d || row < 0 || size_t(row) >= d->code.instructions.size())
        return;
    linking_ = true;
    if (disasm_view_->currentIndex().row() != row)
        disasm_view_->selectRow(row);
    const SourceView *v = source_model_->view();
    uint32_t line = v ? disasm_model_->lineOf(row, v->stored_path, functionName()) : 0;
    int line_row = line != 0 ? v->rowOfLine(line) : -1;
    if (line_row >= 0) {
        source_view_->selectRow(line_row);
        source_view_->scrollTo(source_model_->index(line_row, 0),
                               QAbstractItemView::PositionAtCenter);
    } else {
        source_view_->clearSelection();
    }
    linking_ = false;
}

} // namespace cpcprof::gui
