// SPDX-License-Identifier: MIT
// MainWindow: choosing files (Open, Open Recent, drag and drop, Reload)
// and exporting the flame graph.
#include "gui/app/main_window.h"

#include "gui/pages/flame_graph.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>

namespace cpcprof::gui {

namespace {

constexpr int kRecentFiles = 10;

QString dropped_file(const QMimeData *mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1)
        return {};
    const QUrl &url = mime->urls().front();
    return url.isLocalFile() ? url.toLocalFile() : QString();
}

} // namespace

void MainWindow::openFile(const QString &path) {
    loader_->load(path);
}

void MainWindow::chooseFile() {
    QString path = QFileDialog::getOpenFileName(this, tr("Open profile"), QString(),
                                                tr("Profiles (*.cpcprof);;All files (*)"));
    if (!path.isEmpty())
        openFile(path);
}

void MainWindow::reload() {
    if (profile_)
        openFile(QString::fromStdString(profile_->path));
}

void MainWindow::exportGraph(ExportFormat format) {
    static const char *const names[] = {"flamegraph.html", "flamegraph.svg", "flamegraph.png"};
    const QString filters[] = {tr("HTML page (*.html)"), tr("SVG (*.svg)"), tr("PNG (*.png)")};
    const int f = int(format);
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export flame graph"), names[f], filters[f]);
    if (path.isEmpty())
        return;
    QString error;
    FlameCanvas *c = flame_->canvas();
    QApplication::setOverrideCursor(Qt::WaitCursor);
    bool ok = format == ExportFormat::Png
                  ? c->exportPng(path, &error)
                  : c->exportPage(path, format == ExportFormat::Html, &error);
    QApplication::restoreOverrideCursor();
    if (!ok)
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Flame graph written to %1").arg(path), 5000);
}

void MainWindow::addRecent(const QString &path) {
    QString abs = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    QStringList recent = settings.value("files/recent").toStringList();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > kRecentFiles)
        recent.removeLast();
    settings.setValue("files/recent", recent);
    fillRecentMenu();
}

void MainWindow::fillRecentMenu() {
    recent_menu_->clear();
    QStringList recent = QSettings().value("files/recent").toStringList();
    for (const QString &path : recent)
        recent_menu_->addAction(path, this, [this, path] { openFile(path); });
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent *e) {
    if (!dropped_file(e->mimeData()).isEmpty())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *e) {
    QString path = dropped_file(e->mimeData());
    if (path.isEmpty())
        return;
    e->acceptProposedAction();
    openFile(path);
}

} // namespace cpcprof::gui
