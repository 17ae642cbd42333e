// SPDX-License-Identifier: MIT
// MainWindow: comparing with a base profile (File > Compare With...,
// `cpcprof-gui --base BASE NEW`).  The flame graph of the profile shown is
// coloured by change, the trees and tables get delta columns, and the
// Comparison page lists `cpcprof diff`'s table, functions only in the base
// included.
#include "gui/app/main_window.h"

#include "gui/pages/diff_page.h"
#include "gui/pages/flame_graph.h"

#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

namespace cpcprof::gui {

void MainWindow::makeDiffActions(QMenu *file) {
    diff_page_->setParent(this);
    diff_page_->hide();
    file->addAction(tr("&Compare With..."), this, &MainWindow::chooseBase)
        ->setObjectName("compareWith");
    stop_diff_ = file->addAction(tr("Stop Comparing"), this, [this] { diff_->clearBase(); });
    stop_diff_->setEnabled(false);
    connect(diff_, &DiffController::compared, this, &MainWindow::showDiff);
    connect(diff_, &DiffController::failed, this, &MainWindow::showDiffError);
    connect(diff_page_, &DiffPage::functionActivated, this,
            [this](uint32_t fn) { showFunction(fn, FunctionView::TopDown); });
}

void MainWindow::compareWith(const QString &base) {
    statusBar()->showMessage(tr("Loading the base %1 ...").arg(base));
    diff_->setBase(base);
}

void MainWindow::chooseBase() {
    QString path = QFileDialog::getOpenFileName(this, tr("Compare with (base profile)"), QString(),
                                                tr("Profiles (*.cpcprof);;All files (*)"));
    if (!path.isEmpty())
        compareWith(path);
}

void MainWindow::showDiff(const DiffPtr &diff, qint64 ms) {
    if (diff && diff->now != profile_)
        return; // compared with a profile no longer shown
    flame_->setDiff(diff);
    for (Page *p : {&pages_.top_down, &pages_.bottom_up, &pages_.caller_callee, &pages_.hotspots})
        p->setDiff(diff);
    diff_page_->setDiff(diff);
    int tab = tabs_->indexOf(diff_page_);
    if (diff && tab < 0)
        tabs_->addTab(diff_page_, tr("Comparison"));
    else if (!diff && tab >= 0)
        tabs_->removeTab(tab);
    stop_diff_->setEnabled(diff != nullptr);
    if (diff) {
        diff_page_->setEvent(event_); // ordered by the event shown
        setWindowTitle(tr("%1 against %2 - cpcprof-gui")
                           .arg(QString::fromStdString(diff->now->path),
                                QString::fromStdString(diff->base->path)));
        statusBar()->showMessage(
            tr("Compared with %1 in %2 ms").arg(QString::fromStdString(diff->base->path)).arg(ms),
            10000);
    } else if (profile_) {
        setWindowTitle(tr("%1 - cpcprof-gui").arg(QString::fromStdString(profile_->path)));
    }
    emit diffShown(diff);
}

void MainWindow::showDiffError(const QString &error) {
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Cannot compare"),
                                tr("The profiles cannot be compared."), QMessageBox::Close, this);
    box->setObjectName("diffError");
    box->setInformativeText(error);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    emit loadFailed(error);
}

} // namespace cpcprof::gui
