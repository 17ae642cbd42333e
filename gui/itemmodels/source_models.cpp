// SPDX-License-Identifier: MIT
#include "gui/itemmodels/source_models.h"
#include "base/paths.h"

#include "gui/itemmodels/cost_model.h"

#include <QColor>
#include <QFontDatabase>
#include <QLocale>

namespace cpcprof::gui {

namespace {

using base::base_name;

// Tabs to spaces, stops every 8 columns: a table cell has no tab stops.
QString expand_tabs(const std::string &text) {
    QString in = QString::fromStdString(text), out;
    out.reserve(in.size());
    for (QChar c : in) {
        if (c == '\t')
            out += QString(8 - out.size() % 8, ' ');
        else
            out += c;
    }
    return out;
}

// Hot ranks 1..kHotLines: from strong to faint orange.
QColor hot_colour(int rank) {
    int alpha = 200 - (rank - 1) * 30;
    return QColor(255, 140, 0, std::max(alpha, 60));
}

} // namespace

int CostRowsModel::columnCount(const QModelIndex &parent) const {
    if (parent.isValid())
        return 0;
    return int(leadHeaders().size() + columns_.columns.size() + tailHeaders().size());
}

QVariant CostRowsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const int lead = int(leadHeaders().size()), costs = int(columns_.columns.size());
    if (section < lead)
        return leadHeaders()[section];
    if (section < lead + costs) {
        const CostColumn &col = columns_.columns[size_t(section - lead)];
        return QString::fromStdString(role == Qt::DisplayRole ? col.label : col.header);
    }
    int t = section - lead - costs;
    return t < tailHeaders().size() ? tailHeaders()[t] : QVariant();
}

int CostRowsModel::eventColumn(int event, CostColumn::Kind kind) const {
    for (size_t i = 0; i < columns_.columns.size(); ++i)
        if (columns_.columns[i].kind == kind && columns_.columns[i].event == event)
            return int(leadHeaders().size() + i);
    return -1;
}

QVariant CostRowsModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    if (role == Qt::BackgroundRole)
        return rowBackground(index.row());
    const int lead = int(leadHeaders().size()), costs = int(columns_.columns.size());
    const int c = index.column();
    if (c < lead)
        return keyData(index.row(), c, role);
    if (c >= lead + costs)
        return keyData(index.row(), c - costs, role);
    const CostColumn &col = columns_.columns[size_t(c - lead)];
    const analysis::Cost *self = nullptr, *total = nullptr;
    if (!costsOf(index.row(), &self, &total))
        return role == SortRole ? QVariant(0.0) : QVariant(); // sorts as no cost

    if (role == Qt::ToolTipRole)
        return tr("%1: %2 over %n samples", "", int(column_samples(col, *self, *total)))
            .arg(QString::fromStdString(col.header),
                 formatCost(columns_, col, column_value(columns_, col, *self, *total)));
    // The share alone: the source text keeps its room (the value is in
    // the tooltip).
    return costCellData(columns_, col, *self, *total, role, false);
}

// ---- SourceLinesModel ------------------------------------------------------

SourceLinesModel::SourceLinesModel(QObject *parent) : CostRowsModel(parent) {}

void SourceLinesModel::setView(std::shared_ptr<const SourceView> view, CostColumns columns,
                               const analysis::Query *q) {
    beginResetModel();
    view_ = std::move(view);
    setColumns(std::move(columns));
    inlined_names_.clear();
    if (view_ && q) {
        for (const SourceLine &l : view_->lines) {
            QStringList names;
            for (uint32_t f : l.inlined)
                names << QString::fromStdString(q->functions()[f].name);
            inlined_names_.push_back(
                names.isEmpty() ? QString() : tr("inlined here: %1").arg(names.join(", ")));
        }
    }
    endResetModel();
}

int SourceLinesModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() || !view_ ? 0 : int(view_->lines.size());
}

QVariant SourceLinesModel::keyData(int row, int key, int role) const {
    const SourceLine &l = view_->lines[size_t(row)];
    const QString inl = size_t(row) < inlined_names_.size() ? inlined_names_[size_t(row)] : "";
    if (role == Qt::ToolTipRole)
        return inl.isEmpty() ? QVariant() : QVariant(inl);
    if (role == Qt::FontRole && key == 2)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role == SortRole && key == 0)
        return double(l.line);
    if (role != Qt::DisplayRole)
        return {};
    switch (key) {
    case 0:
        return l.line;
    case 1:
        return l.hot_rank ? QString("#%1").arg(l.hot_rank) : QString();
    default: {
        QString text = expand_tabs(l.text);
        if (!inl.isEmpty())
            text += "    // " + inl;
        return text;
    }
    }
}

bool SourceLinesModel::costsOf(int row, const analysis::Cost **self,
                               const analysis::Cost **total) const {
    const SourceLine &l = view_->lines[size_t(row)];
    if (!l.has_cost)
        return false;
    *self = &l.self;
    *total = &l.total;
    return true;
}

QVariant SourceLinesModel::rowBackground(int row) const {
    int rank = view_->lines[size_t(row)].hot_rank;
    return rank ? QVariant(hot_colour(rank)) : QVariant();
}

// ---- DisassemblyModel ------------------------------------------------------

DisassemblyModel::DisassemblyModel(QObject *parent) : CostRowsModel(parent) {}

void DisassemblyModel::setView(std::shared_ptr<const DisassemblyView> view, CostColumns columns) {
    beginResetModel();
    view_ = std::move(view);
    setColumns(std::move(columns));
    hottest_ = 0;
    if (view_)
        for (const auto &c : view_->costs)
            hottest_ = std::max(hottest_, c.self.samples);
    endResetModel();
}

int DisassemblyModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() || !view_ ? 0 : int(view_->code.instructions.size());
}

std::vector<int> DisassemblyModel::rowsOfLine(const std::string &file, uint32_t n,
                                              const std::string &function) const {
    std::vector<int> rows;
    if (!view_)
        return rows;
    const auto &ins = view_->code.instructions;
    for (size_t i = 0; i < ins.size(); ++i)
        if (lineOf(int(i), file, function) == n)
            rows.push_back(int(i));
    return rows;
}

uint32_t DisassemblyModel::lineOf(int row, const std::string &file,
                                  const std::string &function) const {
    if (!view_ || row < 0 || size_t(row) >= view_->code.instructions.size())
        return 0;
    const analysis::Instruction &in = view_->code.instructions[size_t(row)];
    const std::string base = base_name(file);
    const bool inner_here = in.inner_line != 0 && base_name(in.inner_file) == base;
    // Code of the function shown, inlined into the symbol: its own line.
    if (inner_here && !function.empty() && in.inlined_from.rfind(function + "(", 0) == 0)
        return in.inner_line;
    if (file.empty() || base_name(in.file) == base)
        return in.line;
    if (inner_here)
        return in.inner_line;
    return 0;
}

QVariant DisassemblyModel::keyData(int row, int key, int role) const {
    const analysis::Instruction &in = view_->code.instructions[size_t(row)];
    if (role == Qt::FontRole)
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (role == Qt::ToolTipRole)
        return in.inlined_from.empty()
                   ? QVariant(QString::fromStdString(in.file))
                   : QVariant(tr("inlined %1").arg(QString::fromStdString(in.inlined_from)));
    if (role == SortRole && key == 0)
        return double(in.address);
    if (role != Qt::DisplayRole)
        return {};
    switch (key) {
    case 0:
        return QString("0x%1").arg(in.address, 0, 16);
    case 1:
        return in.line ? QString::fromStdString(base_name(in.file) + ":" + std::to_string(in.line))
                       : QString("?");
    default:
        return QString::fromStdString(in.text) +
               (in.inlined_from.empty()
                    ? QString()
                    : QString("    [inlined %1]").arg(QString::fromStdString(in.inlined_from)));
    }
}

bool DisassemblyModel::costsOf(int row, const analysis::Cost **self,
                               const analysis::Cost **total) const {
    const auto &c = view_->costs[size_t(row)];
    if (c.total.samples == 0)
        return false;
    *self = &c.self;
    *total = &c.total;
    return true;
}

QVariant DisassemblyModel::rowBackground(int row) const {
    uint64_t n = view_->costs[size_t(row)].self.samples;
    if (n == 0 || hottest_ == 0)
        return {};
    int alpha = int(40 + 160 * double(n) / double(hottest_));
    return QColor(255, 140, 0, alpha);
}

} // namespace cpcprof::gui
