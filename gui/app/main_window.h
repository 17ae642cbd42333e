// SPDX-License-Identifier: MIT
// The main window of cpcprof-gui: File menu (Open, Open Recent, Reload,
// Export), drag and drop of a file, the event selector and Back in the
// toolbar, and the pages in tabs: Summary, Flame graph, Top-down,
// Bottom-up, Caller/Callee, Hotspots, Timeline, with the filter stack's
// bar above them (main_window_filters.cpp: every page but the timeline
// shows the filtered profile, made off the GUI thread).  Loads run off the GUI thread
// (profile_loader.h) with a busy indicator and Cancel in the status bar;
// a refused file gives an error dialog naming the problem and leaves the
// profile shown before it in place.  Geometry, the last page and the
// recent files are kept in QSettings.
#pragma once

#include "gui/app/diff_controller.h"
#include "gui/app/profile_loader.h"
#include "gui/model/sample_filter.h"
#include "gui/pages/flame_canvas.h"
#include "gui/pages/job_tracker.h"
#include "gui/pages/pages.h"

#include <QMainWindow>

#include <atomic>
#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace cpcprof::gui {

class FilterStackBar;
class DiffPage;
class RecordDialog;
class FlameGraph;
class SourcePage;
class SummaryPage;
class TimelinePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    enum Tab {
        SummaryTab,
        FlameTab,
        TopDownTab,
        BottomUpTab,
        CallerCalleeTab,
        HotspotsTab,
        SourceTab,
        TimelineTab
    };

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts loading path; the window shows it once loaded.
    void openFile(const QString &path);
    // File > Close (Ctrl+W): the window as it starts, no profile shown
    // (a comparison's base stays chosen for the next file).
    void closeProfile();
    // Help > Keyboard Shortcuts: the text the dialog shows.
    static QString shortcutsText();
    // Compares the profile shown (and those opened later) with the one at
    // base (main_window_diff.cpp): flame graph coloured by change, delta
    // columns, the Comparison page.
    void compareWith(const QString &base);
    DiffController *diffController() const { return diff_; }
    DiffPage *diffPage() const { return diff_page_; }
    // File > Record's dialog (made on first use; main_window_record.cpp),
    // and File > Re-run Last Recording.
    RecordDialog *recordDialog();
    void rerunRecording();
    // What the pages show: the loaded profile narrowed by the filters.
    ProfilePtr profile() const { return profile_; }
    // The profile as loaded (the timeline's).
    ProfilePtr loadedProfile() const { return loaded_; }
    int event() const { return event_; }
    void setEvent(int event);

    ProfileLoader *loader() const { return loader_; }
    FlameGraph *flameGraph() const { return flame_; }
    SummaryPage *summaryPage() const { return summary_; }
    SourcePage *sourcePage() const { return source_; }
    // --source-dir and --path-map of the command line (before the settings').
    void setSourceOptions(const QStringList &dirs, const QStringList &maps);
    // Shows fn's source and disassembly on the Source page.
    void showSource(uint32_t fn);
    QTabWidget *tabs() const { return tabs_; }
    TimelinePage *timelinePage() const { return timeline_; }
    FilterStackBar *filterBar() const { return filter_bar_; }

    // The filter stack: push a step, or go back to the first depth steps;
    // the pages show the result once filtersApplied() is emitted.
    void pushFilter(const FilterStep &step);
    // A filter step keeping only the stacks through the shown profile's
    // function fn (keep), or leaving them out: `report --through` /
    // `--not-through` of its name.
    void filterByFunction(uint32_t fn, bool keep);
    void backToFilter(size_t depth);
    const std::vector<FilterStep> &filters() const { return steps_; }
    bool filtering() const { return filtering_; }
    QComboBox *eventSelector() const { return events_; }
    // The error dialog of the last refused file, while it is open.
    QMessageBox *errorDialog() const { return error_; }

  signals:
    // After a profile is shown (pages filled), or a load failed.
    void profileShown();
    // The pages show the profile narrowed by filters() (or a failure was
    // reported in the status bar).
    void filtersApplied();
    // After a comparison is shown in every view (nullptr: comparing stopped).
    void diffShown(cpcprof::gui::DiffPtr diff);
    void loadFailed(const QString &error);

  protected:
    void closeEvent(QCloseEvent *) override;
    void dragEnterEvent(QDragEnterEvent *) override;
    void dropEvent(QDropEvent *) override;

  private:
    void makeActions();
    void makeDiffActions(QMenu *file);
    void makeRecordActions(QMenu *file);
    void chooseBase();
    void showDiff(const DiffPtr &diff, qint64 ms);
    void showDiffError(const QString &error);
    void chooseFile();
    void reload();
    enum class ExportFormat { Html, Svg, Png };
    // File > Export: the page `cpcprof flamegraph` writes, or a picture.
    void exportGraph(ExportFormat format);
    void showProfile(ProfilePtr profile, qint64 ms);
    void showError(const QString &path, const QString &error);
    void loadingState(bool loading, const QString &path);
    void showFunction(uint32_t fn, FunctionView view);
    void addRecent(const QString &path);
    void fillRecentMenu();
    void applyFilters();
    void showPages(const ProfilePtr &profile);

    ProfileLoader *loader_;
    ProfilePtr profile_;
    ProfilePtr loaded_;
    std::vector<FilterStep> steps_;
    std::vector<ProfilePtr> narrowed_; // [i]: by steps_[0..i]; nullptr: not made
    JobTracker filter_jobs_;
    std::shared_ptr<std::atomic<bool>> filter_cancel_;
    bool filtering_ = false;
    int event_ = 0;
    QTabWidget *tabs_;
    SummaryPage *summary_;
    FlameGraph *flame_;
    Pages pages_;
    SourcePage *source_;
    uint32_t selected_ = UINT32_MAX; // the function last activated in a view
    QStringList source_dirs_, path_maps_;
    TimelinePage *timeline_;
    FilterStackBar *filter_bar_;
    QComboBox *events_;
    QMenu *recent_menu_ = nullptr;
    QAction *reload_ = nullptr;
    QAction *back_ = nullptr;
    QProgressBar *busy_;
    QPushButton *cancel_;
    QMessageBox *error_ = nullptr;
    DiffController *diff_;
    DiffPage *diff_page_;
    QAction *stop_diff_ = nullptr;
    RecordDialog *record_dialog_ = nullptr;
    QAction *rerun_ = nullptr;
};

} // namespace cpcprof::gui
