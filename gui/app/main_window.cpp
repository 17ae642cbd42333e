// SPDX-License-Identifier: MIT
#include "gui/app/main_window.h"

#include "gui/app/source_settings.h"
#include "gui/pages/diff_page.h"
#include "gui/pages/filter_stack_bar.h"
#include "gui/pages/flame_graph.h"
#include "gui/pages/source_page.h"
#include "gui/pages/summary_page.h"
#include "gui/pages/timeline_page.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace cpcprof::gui {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), loader_(new ProfileLoader(this)), filter_jobs_(this),
      tabs_(new QTabWidget), summary_(new SummaryPage), flame_(new FlameGraph),
      source_(new SourcePage), timeline_(new TimelinePage), filter_bar_(new FilterStackBar),
      events_(new QComboBox), busy_(new QProgressBar), cancel_(new QPushButton(tr("Cancel"))),
      diff_(new DiffController(this)), diff_page_(new DiffPage) {
    setWindowTitle(tr("cpcprof-gui"));
    setAcceptDrops(true);
    pages_ = make_pages(
        this,
        [this](uint32_t fn) {
            // A function activated in a tree or table: show it in the others.
            for (Page *p :
                 {&pages_.top_down, &pages_.bottom_up, &pages_.caller_callee, &pages_.hotspots})
                p->selectFunction(fn);
            selected_ = fn;
        },
        [this](uint32_t fn, bool keep) { filterByFunction(fn, keep); });
    tabs_->addTab(summary_, tr("Summary"));
    tabs_->addTab(flame_, tr("Flame graph"));
    tabs_->addTab(pages_.top_down.widget, tr("Top-down"));
    tabs_->addTab(pages_.bottom_up.widget, tr("Bottom-up"));
    tabs_->addTab(pages_.caller_callee.widget, tr("Caller/Callee"));
    tabs_->addTab(pages_.hotspots.widget, tr("Hotspots"));
    tabs_->addTab(source_, tr("Source"));
    source_->setRoots(source_roots({}, {}));
    tabs_->addTab(timeline_, tr("Timeline"));
    auto *central = new QWidget;
    auto *column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(filter_bar_);
    column->addWidget(tabs_, 1);
    setCentralWidget(central);
    connect(timeline_, &TimelinePage::filterRequested, this, &MainWindow::pushFilter);
    connect(filter_bar_, &FilterStackBar::backTo, this, &MainWindow::backToFilter);

    events_->setObjectName("eventSelector");
    events_->setToolTip(tr("The event that sets widths, order and shares"));
    events_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(events_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setEvent(i);
    });
    busy_->setRange(0, 0); // busy: load_profile has steps, not a fraction
    busy_->setMaximumWidth(160);
    busy_->hide();
    cancel_->setObjectName("cancelLoad");
    cancel_->hide();
    statusBar()->addPermanentWidget(busy_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, loader_, &ProfileLoader::cancel);
    connect(loader_, &ProfileLoader::started, this,
            [this](const QString &path) { loadingState(true, path); });
    connect(loader_, &ProfileLoader::loaded, this, &MainWindow::showProfile);
    connect(loader_, &ProfileLoader::failed, this, &MainWindow::showError);
    connect(loader_, &ProfileLoader::cancelled, this, [this](const QString &path) {
        loadingState(false, path);
        statusBar()->showMessage(tr("Loading %1 cancelled").arg(path), 5000);
    });
    connect(flame_, &FlameGraph::showFunction, this, &MainWindow::showFunction);
    connect(flame_, &FlameGraph::filterByFunction, this, &MainWindow::filterByFunction);
    connect(flame_->canvas(), &FlameCanvas::zoomChanged, this,
            [this](uint32_t zoom) { back_->setEnabled(zoom != 0); });
    connect(flame_->canvas(), &FlameCanvas::zoomChanged, this, [this](uint32_t zoom) {
        if (zoom != 0 && flame_->canvas()->tree()) // the frame zoomed into is selected
            selected_ = flame_->canvas()->tree()->nodes()[zoom].function;
    });
    makeActions();

    QSettings settings;
    if (!restoreGeometry(settings.value("window/geometry").toByteArray())) {
        // The first start: most of the screen, not the layouts' size hint
        // (about 600 by 350 pixels, too small for a flame graph).
        const QScreen *s = screen() != nullptr ? screen() : QGuiApplication::primaryScreen();
        if (s != nullptr) {
            QRect area = s->availableGeometry();
            resize(std::min(1400, area.width() * 4 / 5), std::min(900, area.height() * 4 / 5));
        }
    }
    tabs_->setCurrentIndex(settings.value("window/view", int(FlameTab)).toInt());
}

MainWindow::~MainWindow() = default;

void MainWindow::makeActions() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open..."), this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    recent_menu_->setObjectName("recentFiles");
    fillRecentMenu();
    reload_ = file->addAction(tr("Re&load"), this, &MainWindow::reload);
    reload_->setShortcut(QKeySequence::Refresh);
    reload_->setEnabled(false);
    makeDiffActions(file);
    makeRecordActions(file);
    file->addSeparator();
    file->addAction(tr("Export flame graph as &HTML (interactive)..."), this,
                    [this] { exportGraph(ExportFormat::Html); });
    file->addAction(tr("Export flame graph as &SVG (interactive)..."), this,
                    [this] { exportGraph(ExportFormat::Svg); });
    file->addAction(tr("Export flame graph as &PNG..."), this,
                    [this] { exportGraph(ExportFormat::Png); });
    file->addSeparator();
    QAction *close = file->addAction(tr("&Close"), this, &MainWindow::closeProfile);
    close->setObjectName("closeProfile");
    close->setShortcut(Qt::CTRL | Qt::Key_W);
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    back_ = new QAction(tr("Back"), this);
    back_->setShortcut(QKeySequence::Back);
    back_->setToolTip(tr("Zoom the flame graph back out (Esc)"));
    back_->setEnabled(false);
    connect(back_, &QAction::triggered, this, [this] { flame_->canvas()->zoomOut(); });

    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName("mainToolBar");
    bar->addAction(open);
    bar->addAction(reload_);
    bar->addAction(back_);
    bar->addSeparator();
    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *src = view->addAction(tr("&Source of the Selected Function"), this, [this] {
        uint32_t fn = selected_function(tabs_->currentWidget());
        showSource(fn != UINT32_MAX          ? fn
                   : selected_ != UINT32_MAX ? selected_
                                             : source_->function());
    });
    src->setObjectName("showSource");
    src->setShortcut(Qt::CTRL | Qt::Key_U);
    menuBar()->addMenu(tr("&Settings"))->addAction(tr("Source &Directories..."), this, [this] {
        auto *d = new SourceSettingsDialog(this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        connect(d, &QDialog::accepted, this,
                [this] { source_->setRoots(source_roots(source_dirs_, path_maps_)); });
        d->open();
    });
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutsText());
    });
    help->addAction(tr("&About cpcprof-gui"), this, [this] {
        QMessageBox::about(
            this, tr("About cpcprof-gui"),
            tr("<b>cpcprof-gui %1</b><p>The viewer of cpcprof, a sampling profiler built on "
               "libcpc(3LIB) for Linux. MIT license.</p><p>Manual: <tt>man cpcprof-gui</tt>, "
               "<tt>man cpcprof</tt>; the project's docs/viewer.md.</p>")
                .arg(QStringLiteral(CPCPROF_VERSION)));
    });
    bar->addWidget(new QLabel(tr(" Event: ")));
    bar->addWidget(events_);
}

QString MainWindow::shortcutsText() {
    auto key = [](QKeySequence::StandardKey k) {
        return QKeySequence(k).toString(QKeySequence::NativeText);
    };
    return tr("%1  open a profile\n%2  reload it\n%3  close it\n%4  quit\n"
              "%5  source of the selected function\n"
              "Esc, Backspace, %6  zoom the flame graph back out\n"
              "Click a frame  zoom into it; right-click: show it in the other pages")
        .arg(key(QKeySequence::Open), key(QKeySequence::Refresh),
             QKeySequence(Qt::CTRL | Qt::Key_W).toString(QKeySequence::NativeText),
             key(QKeySequence::Quit),
             QKeySequence(Qt::CTRL | Qt::Key_U).toString(QKeySequence::NativeText),
             key(QKeySequence::Back));
}

void MainWindow::setEvent(int event) {
    if (!profile_ || event < 0 || size_t(event) >= profile_->query->events().size())
        return;
    event_ = event;
    if (events_->currentIndex() != event) {
        QSignalBlocker block(events_);
        events_->setCurrentIndex(event);
    }
    summary_->setEvent(event);
    diff_page_->setEvent(event);
    flame_->setEvent(event);
    timeline_->setEvent(event);
    for (Page *p : {&pages_.top_down, &pages_.bottom_up, &pages_.caller_callee, &pages_.hotspots})
        p->setEvent(event);
    source_->setEvent(event);
}

void MainWindow::showProfile(ProfilePtr profile, qint64 ms) {
    loadingState(false, QString());
    profile_ = std::move(profile);
    QString path = QString::fromStdString(profile_->path);
    {
        QSignalBlocker block(events_);
        events_->clear();
        const analysis::Query &q = *profile_->query;
        for (const storage::EventInfo &e : q.events())
            events_->addItem(QString::fromStdString(e.name));
        if (q.off_cpu_event() >= 0)
            events_->setItemData(q.off_cpu_event(),
                                 tr("Time the threads spent off the CPU, on the stacks they "
                                    "waited in"),
                                 Qt::ToolTipRole);
        if (q.wall_clock_event() >= 0)
            events_->setItemData(
                q.wall_clock_event(),
                tr("Time on the CPU (%1) and off it: each thread's whole run")
                    .arg(QString::fromStdString(q.events()[size_t(q.wall_clock_source())].name)),
                Qt::ToolTipRole);
    }
    // The sampling event (the first) drives widths until the user picks
    // another; a recording of where the threads waited opens on their
    // whole time, on the CPU and off.
    event_ = std::max(profile_->query->wall_clock_event(), 0);
    // A new file (or the same, reloaded) starts without filters.
    loaded_ = profile_;
    steps_.clear();
    narrowed_.clear();
    if (filter_cancel_)
        *filter_cancel_ = true;
    filter_jobs_.cancel();
    filtering_ = false;
    timeline_->setProfile(loaded_);
    filter_bar_->setSteps({}, 0, 0);
    selected_ = UINT32_MAX;
    showPages(profile_);
    reload_->setEnabled(true);
    setWindowTitle(tr("%1 - cpcprof-gui").arg(path));
    const analysis::Query &q = *profile_->query;
    QString waited;
    if (const int off = q.off_cpu_event(); off >= 0)
        waited =
            tr(" and %1 s off the CPU").arg(double(q.total().values[size_t(off)]) / 1e9, 0, 'f', 3);
    statusBar()->showMessage(tr("%1: %2 samples%3, loaded in %4 ms")
                                 .arg(path)
                                 .arg(q.samples_kept())
                                 .arg(waited)
                                 .arg(ms));
    addRecent(path);
    emit profileShown();
}

void MainWindow::closeProfile() {
    loader_->cancel();
    if (filter_cancel_)
        *filter_cancel_ = true;
    filter_jobs_.cancel();
    filtering_ = false;
    profile_.reset();
    loaded_.reset();
    steps_.clear();
    narrowed_.clear();
    selected_ = UINT32_MAX;
    {
        QSignalBlocker block(events_);
        events_->clear();
    }
    event_ = 0;
    timeline_->setProfile(nullptr);
    filter_bar_->setSteps({}, 0, 0);
    showPages(nullptr);
    reload_->setEnabled(false);
    setWindowTitle(tr("cpcprof-gui"));
    statusBar()->clearMessage();
}

void MainWindow::showError(const QString &path, const QString &error) {
    loadingState(false, path);
    if (error_)
        error_->close();
    error_ = new QMessageBox(QMessageBox::Critical, tr("Cannot open profile"),
                             tr("%1 cannot be opened.").arg(path), QMessageBox::Close, this);
    error_->setObjectName("loadError");
    error_->setInformativeText(error);
    error_->setAttribute(Qt::WA_DeleteOnClose);
    connect(error_, &QObject::destroyed, this, [this] { error_ = nullptr; });
    error_->open(); // window-modal, not blocking: the window stays as it was
    emit loadFailed(error);
}

void MainWindow::loadingState(bool loading, const QString &path) {
    busy_->setVisible(loading);
    cancel_->setVisible(loading);
    if (loading)
        statusBar()->showMessage(tr("Loading %1 ...").arg(path));
    else
        statusBar()->clearMessage();
}

void MainWindow::setSourceOptions(const QStringList &dirs, const QStringList &maps) {
    source_dirs_ = dirs;
    path_maps_ = maps;
    source_->setRoots(source_roots(dirs, maps));
}

void MainWindow::showSource(uint32_t fn) {
    if (fn == UINT32_MAX)
        return;
    selected_ = fn;
    source_->showFunction(fn);
    tabs_->setCurrentIndex(SourceTab);
}

void MainWindow::showFunction(uint32_t fn, FunctionView view) {
    if (view == FunctionView::Source)
        return showSource(fn);
    Page *page = &pages_.top_down;
    Tab tab = TopDownTab;
    if (view == FunctionView::BottomUp) {
        page = &pages_.bottom_up;
        tab = BottomUpTab;
    } else if (view == FunctionView::CallerCallee) {
        page = &pages_.caller_callee;
        tab = CallerCalleeTab;
    }
    page->selectFunction(fn);
    tabs_->setCurrentIndex(tab);
}

void MainWindow::closeEvent(QCloseEvent *e) {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/view", tabs_->currentIndex());
    QMainWindow::closeEvent(e);
}

} // namespace cpcprof::gui
