// The main window of cpcprof-gui: File menu (Open, Open Recent, Reload,
// Export), drag and drop of a file, the event selector and Back in the
// toolbar, and the pages in tabs: Summary, Flame graph, Top-down,
// Bottom-up, Caller/Callee, Hotspots.  Loads run off the GUI thread
// (profile_loader.h) with a busy indicator and Cancel in the status bar;
// a refused file gives an error dialog naming the problem and leaves the
// profile shown before it in place.  Geometry, the last page and the
// recent files are kept in QSettings.
#pragma once

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

class FlameGraph;
class SourcePage;
class SummaryPage;

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
        SourceTab
    };

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Starts loading path; the window shows it once loaded.
    void openFile(const QString &path);
    ProfilePtr profile() const { return profile_; }
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
    QComboBox *eventSelector() const { return events_; }
    // The error dialog of the last refused file, while it is open.
    QMessageBox *errorDialog() const { return error_; }

  signals:
    // After a profile is shown (pages filled), or a load failed.
    void profileShown();
    void loadFailed(const QString &error);

  protected:
    void closeEvent(QCloseEvent *) override;
    void dragEnterEvent(QDragEnterEvent *) override;
    void dropEvent(QDropEvent *) override;

  private:
    void makeActions();
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
    SourcePage *source_;
    uint32_t selected_ = UINT32_MAX; // the function last activated in a view
    QStringList source_dirs_, path_maps_;
    QComboBox *events_;
    QMenu *recent_menu_ = nullptr;
    QAction *reload_ = nullptr;
    QAction *back_ = nullptr;
    QProgressBar *busy_;
    QPushButton *cancel_;
    QMessageBox *error_ = nullptr;
};

} // namespace cpcprof::gui
