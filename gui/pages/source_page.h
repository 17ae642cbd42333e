// SPDX-License-Identifier: MIT
// The Source page: one function's source file with per-line self and
// total costs of every event and the derived ratios, hot lines marked
// (#1 .. #5), a scroll-bar overview of where the cost lies, calls inlined
// at a line named there; beside it the function's disassembly (objdump)
// with per-instruction costs.  Selecting a line selects its instructions
// and selecting an instruction selects its line (both scroll there).
// The numbers are those of `cpcprof annotate` and `annotate --disassemble`
// (gui/model/source_view.h).  The page opens at the hottest line (or,
// without source lines, the hottest instruction); Next and Previous hot
// spot (F3, Shift+F3) walk the hot lines by rank, or the ten hottest
// instructions when no line has costs.  A click on a header sorts by
// that column (the line or address column puts the rows back in order).
// Cost columns give way to the text: when the source would keep fewer
// than 60 characters (the disassembly 40), the other events' columns and
// the ratios hide, then the chosen event's total; the page says how many
// and the header's menu shows them again (page_util.h keeps a person's
// choices).  Both halves are made off the GUI thread; a
// newer request drops older results.  Files are read only under the
// source roots (report/source_access.h); the page says why one is not.
#pragma once

#include "gui/model/profile_data.h"
#include "gui/pages/job_tracker.h"
#include "profiler/analysis/source_access.h"

#include <QWidget>

class QLabel;
class QSplitter;
class QModelIndex;
class QSortFilterProxyModel;
class QToolButton;
class QTableView;

namespace cpcprof::gui {

class CostOverview;
class DisassemblyModel;
class SourceLinesModel;

// The function selected in page (a tree or table page): the current row
// of its focused item view, else of its first view that has one;
// UINT32_MAX when none.
uint32_t selected_function(const QWidget *page);

class SourcePage : public QWidget {
    Q_OBJECT
  public:
    explicit SourcePage(QWidget *parent = nullptr);

    void setProfile(ProfilePtr profile); // nullptr = clear
    void setEvent(int event);
    // Where source files are looked for (command line and settings).
    void setRoots(analysis::SourceRoots roots);
    const analysis::SourceRoots &roots() const { return roots_; }
    // Shows fn's source and disassembly (made off the GUI thread).
    void showFunction(uint32_t fn);
    // The function shown or being made; UINT32_MAX = none.
    uint32_t function() const { return function_; }

    QTableView *sourceView() const { return source_view_; }
    QTableView *disassemblyView() const { return disasm_view_; }
    SourceLinesModel *sourceModel() const { return source_model_; }
    DisassemblyModel *disassemblyModel() const { return disasm_model_; }
    CostOverview *overview() const { return overview_; }
    QLabel *status() const { return status_; }
    QLabel *disassemblyStatus() const { return disasm_status_; }

    // Scrolls to and selects the source line n and the instructions of it.
    void selectLine(uint32_t n);
    // Selects instruction row and its source line.
    void selectInstruction(int row);

    // The hot spots in order (source rows by rank, else instruction rows
    // by the event's self cost, hottest first); which of them is shown
    // (-1: none yet); whether they are instruction rows.
    std::vector<int> hotSpots(bool *instructions = nullptr) const;
    int hotSpot() const { return hot_spot_; }
    // Shows hot spot i of hotSpots() (wrapping around).
    void showHotSpot(int i);
    QToolButton *nextHotSpotButton() const { return next_hot_; }
    QToolButton *previousHotSpotButton() const { return prev_hot_; }
    QLabel *hotSpotLabel() const { return hot_label_; }

    // Cost columns hidden to give the text its room (not those a person hid).
    int collapsedColumns() const {
        return int(source_collapsed_.size() + disasm_collapsed_.size());
    }
    QLabel *columnsNote() const { return columns_note_; }

  signals:
    void sourceShown();      // the source half is filled (or says why not)
    void disassemblyShown(); // the disassembly half is filled (or says why not)

  protected:
    void resizeEvent(QResizeEvent *) override;
    void showEvent(QShowEvent *) override;

  private:
    void request();
    // Hides cost columns of view (name in the settings) until its text
    // column keeps chars characters; collapsed: the columns it hid.
    void collapse(QTableView *view, const QString &name, int text_column, int chars,
                  std::vector<int> &collapsed);
    void collapseAll();
    // The title asks for a function; the status lines are empty.
    void showNoFunction();
    void fillOverview();
    void updateHotSpotButtons();
    std::string functionName() const;
    ProfilePtr profile_;
    int event_ = 0;
    uint32_t function_ = UINT32_MAX;
    analysis::SourceRoots roots_;
    // DEBUGINFOD_URLS when the page was made: asked for a missing source
    // or debug file for at most kFetchSeconds a job ("" = none).
    std::string servers_;
    static constexpr int kFetchSeconds = 15;
    JobTracker source_jobs_, disasm_jobs_;
    bool linking_ = false; // a selection made by the other half
    int hot_spot_ = -1;
    std::vector<int> source_collapsed_, disasm_collapsed_;
    QLabel *title_, *status_, *disasm_status_, *hot_label_, *columns_note_;
    QToolButton *prev_hot_, *next_hot_;
    SourceLinesModel *source_model_;
    DisassemblyModel *disasm_model_;
    QTableView *source_view_, *disasm_view_;
    QSortFilterProxyModel *source_proxy_, *disasm_proxy_; // sorting; rows of the models
    // The views' index of a model row, and the model row of a view's index.
    QModelIndex lineIndex(int row) const;
    int lineRow(const QModelIndex &shown) const;
    QModelIndex instructionIndex(int row) const;
    CostOverview *overview_;
    QSplitter *split_;
    // The source half 3:2 beside the disassembly, or 1:4 when it has no
    // lines to show (a function without debug information): applied now
    // when the page is shown and laid out, or when it next is.
    void shareRoom();
    void applyRoom();
    bool room_pending_ = false;
    bool room_lines_ = true;
};

} // namespace cpcprof::gui
