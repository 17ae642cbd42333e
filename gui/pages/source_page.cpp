// SPDX-License-Identifier: MIT
#include "gui/pages/source_page.h"

#include "gui/itemmodels/cost_delegate.h"
#include "gui/itemmodels/cost_model.h"
#include "gui/itemmodels/source_models.h"
#include "gui/pages/cost_overview.h"
#include "gui/pages/page_util.h"

#include "base/clock.h"
#include "symbolize/debuginfod.h"

#include <QFontDatabase>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
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
      status_(new QLabel(this)), disasm_status_(new QLabel(this)), hot_label_(new QLabel(this)),
      columns_note_(new QLabel(this)), prev_hot_(new QToolButton(this)),
      next_hot_(new QToolButton(this)), source_model_(new SourceLinesModel(this)),
      disasm_model_(new DisassemblyModel(this)), source_view_(new QTableView(this)),
      disasm_view_(new QTableView(this)), source_proxy_(new QSortFilterProxyModel(this)),
      disasm_proxy_(new QSortFilterProxyModel(this)), overview_(new CostOverview(this)) {
    servers_ = symbolize::debuginfod_urls_from_environment();
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
    keepColumnChoices(source_view_->horizontalHeader(), "sourceLines");
    keepColumnChoices(disasm_view_->horizontalHeader(), "disassembly");
    // Sorted on a click on a header (by the figure under SortRole); the
    // line or address column puts them back in order.
    for (auto [view, proxy, model] :
         {std::tuple{source_view_, source_proxy_, static_cast<QAbstractItemModel *>(source_model_)},
          std::tuple{disasm_view_, disasm_proxy_,
                     static_cast<QAbstractItemModel *>(disasm_model_)}}) {
        proxy->setSortRole(SortRole);
        proxy->setSourceModel(model);
        view->setModel(proxy);
        view->horizontalHeader()->setSortIndicator(0, Qt::AscendingOrder);
        view->setSortingEnabled(true);
    }

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
    split_ = new QSplitter(Qt::Horizontal, this);
    split_->addWidget(left);
    split_->addWidget(right);
    split_->setStretchFactor(0, 3);
    split_->setStretchFactor(1, 2);
    hot_label_->setObjectName("hotSpot");
    prev_hot_->setObjectName("previousHotSpot");
    next_hot_->setObjectName("nextHotSpot");
    prev_hot_->setText(tr("< Previous hot spot"));
    next_hot_->setText(tr("Next hot spot >"));
    prev_hot_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3));
    next_hot_->setShortcut(QKeySequence(Qt::Key_F3));
    prev_hot_->setToolTip(tr("The previous hot line or instruction (Shift+F3)"));
    next_hot_->setToolTip(tr("The next hot line or instruction (F3)"));
    connect(prev_hot_, &QToolButton::clicked, this, [this] { showHotSpot(hot_spot_ - 1); });
    connect(next_hot_, &QToolButton::clicked, this, [this] { showHotSpot(hot_spot_ + 1); });
    auto *hot_row = new QHBoxLayout;
    hot_row->addWidget(prev_hot_);
    hot_row->addWidget(next_hot_);
    hot_row->addWidget(hot_label_, 1);
    columns_note_->setObjectName("columnsNote");
    hot_row->addWidget(columns_note_);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addLayout(hot_row);
    layout->addWidget(split_, 1);

    connect(overview_, &CostOverview::rowClicked, this, [this](int r) {
        source_view_->scrollTo(lineIndex(r), QAbstractItemView::PositionAtCenter);
    });
    connect(source_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &cur) {
                if (linking_ || !cur.isValid() || !source_model_->view())
                    return;
                selectLine(source_model_->view()->lines[size_t(lineRow(cur))].line);
            });
    connect(disasm_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &cur) {
                if (!linking_ && cur.isValid())
                    selectInstruction(disasm_proxy_->mapToSource(cur).row());
            });
}

void SourcePage::showNoFunction() {
    title_->setText(tr("No function chosen: Show source in the flame graph's context menu, or "
                       "select a row in a tree or table and press Ctrl+U (View > Source of the "
                       "Selected Function)"));
    status_->clear();
    disasm_status_->clear();
    hot_spot_ = -1;
    updateHotSpotButtons();
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
    const bool ask = !servers_.empty();
    status_->setText(ask ? tr("Reading the source (one missing here is asked of the debuginfod "
                              "servers, up to %1 s) ...")
                               .arg(kFetchSeconds)
                         : tr("Reading the source ..."));
    disasm_status_->setText(ask ? tr("Disassembling (objdump; a debug file missing here is "
                                     "asked of the debuginfod servers, up to %1 s) ...")
                                      .arg(kFetchSeconds)
                                : tr("Disassembling (objdump) ..."));
    hot_spot_ = -1;
    updateHotSpotButtons();
    ProfilePtr p = profile_;
    uint32_t fn = function_;
    int event = event_;
    analysis::SourceRoots roots = roots_;
    // A client of each job's own, on the job's thread, bounded.
    auto client_for = [servers = servers_] {
        std::unique_ptr<symbolize::DebuginfodClient> c;
        std::string why;
        if (!servers.empty())
            c = symbolize::DebuginfodClient::open(servers, &why);
        if (c)
            c->set_deadline_ns(base::monotonic_ns() + int64_t(kFetchSeconds) * 1'000'000'000);
        return c;
    };
    source_jobs_.run(
        [p, fn, roots, event, client_for] {
            auto client = client_for();
            return std::make_shared<const SourceView>(
                source_view(*p->query, fn, roots, event, client.get()));
        },
        [this, p](const std::shared_ptr<const SourceView> &v) {
            source_model_->setView(v, cost_columns(*p->query), p->query.get());
            QString where;
            if (!v->shown_path.empty() && !v->fetched_from.empty())
                where = tr("%1 (fetched from %2)")
                            .arg(QString::fromStdString(v->stored_path),
                                 QString::fromStdString(v->fetched_from));
            else if (!v->shown_path.empty())
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
            fitColumns(source_view_, source_view_->horizontalHeader(), "sourceLines", false);
            shareRoom();
            source_collapsed_.clear();
            collapseAll();
            fillOverview();
            // Show the hottest line (and its instructions when they are
            // in), or without lines with costs the hottest instruction.
            updateHotSpotButtons();
            bool instructions = false;
            std::vector<int> hot = hotSpots(&instructions);
            if (!hot.empty())
                showHotSpot(0);
            if (!hot.empty() && !instructions)
                // Again once the rows have their final geometry.
                QTimer::singleShot(
                    0, this, [this, fn = v->function, n = v->lines[size_t(hot[0])].line] {
                        const SourceView *now = source_model_->view();
                        int row = now && now->function == fn ? now->rowOfLine(n) : -1;
                        if (row >= 0)
                            source_view_->scrollTo(lineIndex(row),
                                                   QAbstractItemView::PositionAtCenter);
                    });
            emit sourceShown();
        });
    disasm_jobs_.run(
        [p, fn, client_for] {
            auto client = client_for();
            analysis::DisassemblyOptions options;
            options.debuginfod = client.get();
            return std::make_shared<const DisassemblyView>(
                disassembly_view(*p->query, fn, options));
        },
        [this, p](const std::shared_ptr<const DisassemblyView> &d) {
            disasm_model_->setView(d, cost_columns(*p->query));
            QString said =
                d->code.error.empty()
                    ? tr("%1 in %2: %n instructions", "", int(d->code.instructions.size()))
                          .arg(QString::fromStdString(d->code.symbol),
                               QString::fromStdString(d->code.module))
                    : tr("No disassembly: %1").arg(QString::fromStdString(d->code.error));
            if (d->code.error.empty() && !d->code.debug_file.empty())
                said += tr("; named from %1%2")
                            .arg(QString::fromStdString(d->code.debug_file),
                                 d->code.debug_from.empty()
                                     ? QString()
                                     : ", " + QString::fromStdString(d->code.debug_from));
            disasm_status_->setText(said);
            fitColumns(disasm_view_, disasm_view_->horizontalHeader(), "disassembly", false);
            disasm_collapsed_.clear();
            collapseAll();
            QModelIndex cur = source_view_->currentIndex();
            const SourceView *v = source_model_->view();
            updateHotSpotButtons();
            bool instructions = false;
            hotSpots(&instructions);
            if (cur.isValid() && v && v->function == d->function)
                selectLine(v->lines[size_t(lineRow(cur))].line);
            else if (instructions && (!v || v->function == d->function))
                showHotSpot(0); // no line has costs: the hottest instruction
            emit disassemblyShown();
        });
}

void SourcePage::shareRoom() {
    room_lines_ = source_model_->rowCount() > 0;
    room_pending_ = true;
    // A window resized later keeps the same shares.
    split_->setStretchFactor(0, room_lines_ ? 3 : 1);
    split_->setStretchFactor(1, room_lines_ ? 2 : 4);
    applyRoom();
}

void SourcePage::applyRoom() {
    // A hidden page's splitter has no width yet, and sizes given to it
    // then are not the ones it shows with.
    if (!room_pending_ || !split_->isVisible() || split_->width() < 100)
        return;
    room_pending_ = false;
    const int whole = split_->width();
    split_->setSizes(
        {room_lines_ ? whole * 3 / 5 : whole / 5, room_lines_ ? whole * 2 / 5 : whole * 4 / 5});
}

QModelIndex SourcePage::lineIndex(int row) const {
    return source_proxy_->mapFromSource(source_model_->index(row, 0));
}

int SourcePage::lineRow(const QModelIndex &shown) const {
    return source_proxy_->mapToSource(shown).row();
}

QModelIndex SourcePage::instructionIndex(int row) const {
    return disasm_proxy_->mapFromSource(disasm_model_->index(row, 0));
}

std::vector<int> SourcePage::hotSpots(bool *instructions) const {
    std::vector<int> rows;
    const SourceView *v = source_model_->view();
    if (instructions)
        *instructions = false;
    if (v && v->function == function_) {
        std::vector<std::pair<int, int>> ranked; // (rank, row)
        for (size_t r = 0; r < v->lines.size(); ++r)
            if (v->lines[r].hot_rank > 0)
                ranked.emplace_back(v->lines[r].hot_rank, int(r));
        std::sort(ranked.begin(), ranked.end());
        for (const auto &rr : ranked)
            rows.push_back(rr.second);
        if (!rows.empty())
            return rows;
    }
    const DisassemblyView *d = disasm_model_->view();
    if (!d || d->function != function_)
        return rows;
    if (!v || v->function != function_) // the source half first, when it comes
        return rows;
    std::vector<std::pair<uint64_t, int>> costly; // (self, row)
    for (size_t r = 0; r < d->costs.size(); ++r) {
        const analysis::Cost &c = d->costs[r].self;
        uint64_t value = size_t(event_) < c.values.size() ? c.values[size_t(event_)] : 0;
        if (value > 0)
            costly.emplace_back(value, int(r));
    }
    std::stable_sort(costly.begin(), costly.end(),
                     [](const auto &a, const auto &b) { return a.first > b.first; });
    for (size_t i = 0; i < costly.size() && i < 10; ++i)
        rows.push_back(costly[i].second);
    if (instructions)
        *instructions = !rows.empty();
    return rows;
}

void SourcePage::showHotSpot(int i) {
    bool instructions = false;
    std::vector<int> rows = hotSpots(&instructions);
    if (rows.empty()) {
        updateHotSpotButtons();
        return;
    }
    const int n = int(rows.size());
    hot_spot_ = ((i % n) + n) % n;
    int row = rows[size_t(hot_spot_)];
    if (instructions) {
        selectInstruction(row);
        disasm_view_->scrollTo(instructionIndex(row), QAbstractItemView::PositionAtCenter);
    } else {
        selectLine(source_model_->view()->lines[size_t(row)].line);
    }
    updateHotSpotButtons();
}

void SourcePage::updateHotSpotButtons() {
    bool instructions = false;
    std::vector<int> rows = hotSpots(&instructions);
    prev_hot_->setEnabled(rows.size() > 1);
    next_hot_->setEnabled(rows.size() > 1);
    if (rows.empty() || hot_spot_ < 0 || size_t(hot_spot_) >= rows.size()) {
        hot_label_->clear();
        return;
    }
    int row = rows[size_t(hot_spot_)];
    QString where;
    const CostColumns &cols = source_model_->costColumns();
    int col = event_column(cols, event_, CostColumn::Kind::Self);
    const analysis::Cost *self = nullptr;
    if (instructions) {
        const DisassemblyView *d = disasm_model_->view();
        where = tr("instruction at 0x%1").arg(d->code.instructions[size_t(row)].address, 0, 16);
        self = &d->costs[size_t(row)].self;
    } else {
        const SourceLine &l = source_model_->view()->lines[size_t(row)];
        where = tr("line %1").arg(l.line);
        self = &l.self;
    }
    QString share;
    if (col >= 0 && self) {
        const CostColumn &c = cols.columns[size_t(col)];
        if (auto s = column_share(cols, c, *self, *self))
            share = tr(", self %1 %").arg(*s * 100, 0, 'f', 2);
    }
    hot_label_->setText(
        tr("Hot spot %1 of %2: %3%4").arg(hot_spot_ + 1).arg(rows.size()).arg(where, share));
}

void SourcePage::resizeEvent(QResizeEvent *e) {
    QWidget::resizeEvent(e);
    applyRoom();
    collapseAll();
}

void SourcePage::showEvent(QShowEvent *e) {
    QWidget::showEvent(e);
    applyRoom();
    collapseAll();
}

void SourcePage::collapseAll() {
    collapse(source_view_, "sourceLines", source_model_->textColumn(), 60, source_collapsed_);
    collapse(disasm_view_, "disassembly", disasm_model_->columnCount() - 1, 40, disasm_collapsed_);
    const int n = collapsedColumns();
    columns_note_->setText(n == 0 ? QString()
                                  : tr("%n cost column(s) hidden to keep the text readable: "
                                       "right-click a header to show them",
                                       "", n));
}

void SourcePage::collapse(QTableView *view, const QString &name, int text_column, int chars,
                          std::vector<int> &collapsed) {
    auto *model = static_cast<CostRowsModel *>(
        static_cast<QSortFilterProxyModel *>(view->model())->sourceModel());
    QHeaderView *h = view->horizontalHeader();
    // Start from what the person chose.
    for (int c : collapsed)
        if (c < h->count())
            h->setSectionHidden(c, false);
    collapsed.clear();
    if (model->rowCount() == 0 || text_column <= 0)
        return;
    const CostColumns &cols = model->costColumns();
    const int first = model->eventColumn(0, CostColumn::Kind::Self);
    if (first < 0)
        return;
    // Which to hide first: the ratios, the other events' totals and
    // selves, then the chosen event's total; its self stays.
    std::vector<int> order;
    for (int pass = 0; pass < 4; ++pass)
        for (size_t i = cols.columns.size(); i-- > 0;) {
            const CostColumn &c = cols.columns[i];
            bool derived =
                c.kind == CostColumn::Kind::DerivedSelf || c.kind == CostColumn::Kind::DerivedTotal;
            bool mine = !derived && c.event == event_;
            bool take = pass == 0   ? derived
                        : pass == 1 ? !derived && !mine && c.kind == CostColumn::Kind::Total
                        : pass == 2 ? !derived && !mine && c.kind == CostColumn::Kind::Self
                                    : mine && c.kind == CostColumn::Kind::Total;
            if (take)
                order.push_back(first + int(i));
        }
    const int need = chars * QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont))
                                 .horizontalAdvance(QLatin1Char('x'));
    auto room = [&] {
        int used = 0;
        for (int c = 0; c < h->count(); ++c)
            if (c != text_column && !h->isSectionHidden(c))
                used += h->sectionSize(c);
        return view->viewport()->width() - used;
    };
    for (int c : order) {
        if (room() >= need)
            break;
        const QString text = model->headerData(c, Qt::Horizontal).toString();
        if (h->isSectionHidden(c) || columnChoice(name, text) == true)
            continue;
        h->setSectionHidden(c, true);
        collapsed.push_back(c);
    }
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
    if (row >= 0 && lineRow(source_view_->currentIndex()) != row) {
        source_view_->setCurrentIndex(lineIndex(row));
        source_view_->selectRow(lineIndex(row).row());
        source_view_->scrollTo(lineIndex(row), QAbstractItemView::PositionAtCenter);
    }
    std::vector<int> rows = disasm_model_->rowsOfLine(v->stored_path, n, functionName());
    QItemSelection sel;
    for (int r : rows)
        sel.select(instructionIndex(r),
                   instructionIndex(r).siblingAtColumn(disasm_model_->columnCount() - 1));
    disasm_view_->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
    if (!rows.empty())
        disasm_view_->scrollTo(instructionIndex(rows.front()), QAbstractItemView::PositionAtCenter);
    linking_ = false;
}

void SourcePage::selectInstruction(int row) {
    const DisassemblyView *d = disasm_model_->view();
    if (!d || row < 0 || size_t(row) >= d->code.instructions.size())
        return;
    linking_ = true;
    if (disasm_proxy_->mapToSource(disasm_view_->currentIndex()).row() != row) {
        disasm_view_->setCurrentIndex(instructionIndex(row));
        disasm_view_->selectRow(instructionIndex(row).row());
    }
    const SourceView *v = source_model_->view();
    uint32_t line = v ? disasm_model_->lineOf(row, v->stored_path, functionName()) : 0;
    int line_row = line != 0 ? v->rowOfLine(line) : -1;
    if (line_row >= 0) {
        source_view_->selectRow(lineIndex(line_row).row());
        source_view_->scrollTo(lineIndex(line_row), QAbstractItemView::PositionAtCenter);
    } else {
        source_view_->clearSelection();
    }
    linking_ = false;
}

} // namespace cpcprof::gui
