// The main window of cpcprof-gui: File menu (Open, Open Recent, Reload,
// Export), drag and drop of a file, the event selector and Back in the
// toolbar, and the pages in tabs: Summary, Flame graph, Top-down,
// Bottom-up, Caller/Callee, Hotspots.  Loads run off the GUI thread
// (profile_loader.h) with a busy indicator and Cancel in the status bar;
// a refused file gives an error dialog naming the problem and leaves the
// profile shown before it in place.  Geometry, the last page and the
// recent files are kept in QSettings.
#pragma once

#include "app/diff_controller.h"
#include "app/flame_canvas.h"
#include "app/pages.h"
#include "app/profile_loader.h"

#include <QMainWindow>

class QAction;
class QComboBox;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace cpcprof::gui {

class DiffPage;
class RecordDialog;
class FlameGraph;
class SummaryPage;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    enum Tab { SummaryTab, FlameTab, TopDownTab, BottomUpTab, CallerCalleeTab, HotspotsTab };

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts loading path; the window shows it once loaded.
    void openFile(const QString &path);
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
    ProfilePtr profile() const { return profile_; }
    int event() const { return event_; }
    void setEvent(int event);

    ProfileLoader *loader() const { return loader_; }
    FlameGraph *flameGraph() const { return flame_; }
    SummaryPage *summaryPage() const { return summary_; }
    QTabWidget *tabs() const { return tabs_; }
    QComboBox *eventSelector() const { return events_; }
    // The error dialog of the last refused file, while it is open.
    QMessageBox *errorDialog() const { return error_; }

  signals:
    // After a profile is shown (pages filled), or a load failed.
    void profileShown();
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
    void showDiff(DiffPtr diff, qint64 ms);
    void showDiffError(const QString &error);
    void chooseFile();
    void reload();
    void exportGraph(bool svg);
    void showProfile(ProfilePtr profile, qint64 ms);
    void showError(const QString &path, const QString &error);
    void loadingState(bool loading, const QString &path);
    void showFunction(uint32_t fn, FunctionView view);
    void addRecent(const QString &path);
    void fillRecentMenu();

    ProfileLoader *loader_;
    ProfilePtr profile_;
    int event_ = 0;
    QTabWidget *tabs_;
    SummaryPage *summary_;
    FlameGraph *flame_;
    Pages pages_;
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
