// SPDX-License-Identifier: MIT
// MainWindow: recording from the viewer (File > Record..., File > Re-run
// Last Recording); the profile recorded is opened.
#include "gui/app/main_window.h"

#include "gui/app/record_dialog.h"

#include <QAction>
#include <QMenu>

namespace cpcprof::gui {

void MainWindow::makeRecordActions(QMenu *file) {
    file->addSeparator();
    QAction *record = file->addAction(tr("Re&cord..."), this, [this] {
        RecordDialog *d = recordDialog();
        d->show();
        d->raise();
        d->activateWindow();
    });
    record->setObjectName("recordAction");
    rerun_ = file->addAction(tr("Re-run Last Recording"), this, &MainWindow::rerunRecording);
    rerun_->setObjectName("rerunRecording");
    rerun_->setEnabled(RecordDialog::hasLastSettings());
}

RecordDialog *MainWindow::recordDialog() {
    if (!record_dialog_) {
        record_dialog_ = new RecordDialog(this);
        connect(record_dialog_, &RecordDialog::recorded, this, &MainWindow::openFile);
        connect(record_dialog_, &RecordDialog::recordingStarted, this,
                [this] { rerun_->setEnabled(true); });
    }
    return record_dialog_;
}

void MainWindow::rerunRecording() {
    RecordDialog *d = recordDialog();
    if (!RecordDialog::hasLastSettings())
        return;
    d->setSettings(RecordDialog::lastSettings());
    d->show();
    d->raise();
    d->record();
}

} // namespace cpcprof::gui
