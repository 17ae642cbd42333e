// SPDX-License-Identifier: MIT
// Item models of the source page: the lines of a function's source file
// and its instructions, each with the cost columns of every view (self and
// total of every event, derived ratios; gui/model/cost_columns.h).
// Cells of event columns carry ShareRole (cost bars); hot lines have a
// background by rank; tooltips name inlined calls.
#pragma once

#include "gui/model/cost_columns.h"
#include "gui/model/source_view.h"

#include <QAbstractTableModel>

#include <memory>

namespace cpcprof::gui {

// Shared cell logic of the two models.
class CostRowsModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    using QAbstractTableModel::QAbstractTableModel;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // The column of event's self or total; -1 if none.
    int eventColumn(int event, CostColumn::Kind kind) const;
    const CostColumns &costColumns() const { return columns_; }

  protected:
    void setColumns(CostColumns columns) { columns_ = std::move(columns); }
    // Columns before and after the costs.
    virtual QStringList leadHeaders() const = 0;
    virtual QStringList tailHeaders() const = 0;
    virtual QVariant keyData(int row, int key_column, int role) const = 0;
    // The row's costs; false when it has none (cells left empty).
    virtual bool costsOf(int row, const analysis::Cost **self,
                         const analysis::Cost **total) const = 0;
    virtual QVariant rowBackground(int /*row*/) const { return {}; }

  private:
    CostColumns columns_;
};

class SourceLinesModel : public CostRowsModel {
    Q_OBJECT
  public:
    explicit SourceLinesModel(QObject *parent = nullptr);
    // nullptr clears.  columns from the same profile.
    void setView(std::shared_ptr<const SourceView> view, CostColumns columns,
                 const analysis::Query *q);
    const SourceView *view() const { return view_.get(); }
    int rowCount(const QModelIndex &parent = {}) const override;
    int textColumn() const { return 2 + int(costColumns().columns.size()); }

  protected:
    QStringList leadHeaders() const override { return {tr("Line"), tr("Hot")}; }
    QStringList tailHeaders() const override { return {tr("Source")}; }
    QVariant keyData(int row, int key_column, int role) const override;
    bool costsOf(int row, const analysis::Cost **self, const analysis::Cost **total) const override;
    QVariant rowBackground(int row) const override;

  private:
    std::shared_ptr<const SourceView> view_;
    std::vector<QString> inlined_names_; // per row: "inlined here: f, g"
};

class DisassemblyModel : public CostRowsModel {
    Q_OBJECT
  public:
    explicit DisassemblyModel(QObject *parent = nullptr);
    void setView(std::shared_ptr<const DisassemblyView> view, CostColumns columns);
    const DisassemblyView *view() const { return view_.get(); }
    int rowCount(const QModelIndex &parent = {}) const override;
    // Rows of the instructions at source line n of file (lineOf); empty
    // when none.
    std::vector<int> rowsOfLine(const std::string &file, uint32_t n,
                                const std::string &function = {}) const;
    // The line of file (matched by base name) that instruction row is at:
    // for code of `function` inlined into the symbol, its own line; else
    // the symbol's function's line when file is its file, else the inlined
    // code's line when that came from file; 0 when none.
    uint32_t lineOf(int row, const std::string &file, const std::string &function = {}) const;

  protected:
    QStringList leadHeaders() const override { return {tr("Address")}; }
    QStringList tailHeaders() const override { return {tr("Line"), tr("Instruction")}; }
    QVariant keyData(int row, int key_column, int role) const override;
    bool costsOf(int row, const analysis::Cost **self, const analysis::Cost **total) const override;
    QVariant rowBackground(int row) const override;

  private:
    std::shared_ptr<const DisassemblyView> view_;
    uint64_t hottest_ = 0; // the most self samples of an instruction
};

} // namespace cpcprof::gui
