// SPDX-License-Identifier: MIT
#include "gui/app/record_dialog.h"

#include "gui/app/recorder.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace cpcprof::gui {

namespace {

constexpr char kLastKey[] = "record/last";

QWidget *with_browse(QLineEdit *edit, QPushButton *browse) {
    auto *w = new QWidget;
    auto *row = new QHBoxLayout(w);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(edit);
    row->addWidget(browse);
    return w;
}

} // namespace

RecordDialog::RecordDialog(QWidget *parent)
    : QDialog(parent), recorder_(new Recorder(this)), program_(find_cpcprof()),
      command_(new QLineEdit), arguments_(new QLineEdit), directory_(new QLineEdit),
      events_(new QLineEdit), value_(new QLineEdit), output_(new QLineEdit), rate_(new QComboBox),
      call_graph_(new QComboBox), available_(new QListWidget), log_(new QPlainTextEdit),
      status_(new QLabel), record_(new QPushButton(tr("&Record"))),
      stop_(new QPushButton(tr("&Stop"))) {
    setObjectName("recordDialog");
    setWindowTitle(tr("Record - cpcprof-gui"));
    command_->setObjectName("recordCommand");
    arguments_->setObjectName("recordArguments");
    directory_->setObjectName("recordDirectory");
    events_->setObjectName("recordEvents");
    value_->setObjectName("recordRateValue");
    output_->setObjectName("recordOutput");
    rate_->setObjectName("recordRate");
    call_graph_->setObjectName("recordCallGraph");
    available_->setObjectName("recordAvailableEvents");
    log_->setObjectName("recordLog");
    record_->setObjectName("recordStart");
    stop_->setObjectName("recordStop");

    command_->setPlaceholderText(tr("the program, e.g. ./myprog or /usr/bin/gzip"));
    arguments_->setPlaceholderText(tr("its arguments, quoted as in a shell"));
    directory_->setPlaceholderText(tr("the viewer's working directory"));
    events_->setPlaceholderText(tr("default: cpu-clock; EVENT[,PERIOD] separated by spaces, the "
                                   "first samples"));
    rate_->addItems({tr("default"), tr("rate (samples/s of CPU time, -F)"),
                     tr("period (events per sample, -c)")});
    call_graph_->addItems({"dwarf", "fp", "none"});
    available_->setMaximumHeight(110);
    available_->setToolTip(tr("What cpcprof list says this machine can count; double-click "
                              "adds an event"));
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    log_->setFont(QFont("monospace"));
    stop_->setEnabled(false);

    auto *command_browse = new QPushButton(tr("Browse..."));
    connect(command_browse, &QPushButton::clicked, this, [this] {
        QString f = QFileDialog::getOpenFileName(this, tr("Program to record"));
        if (!f.isEmpty())
            command_->setText(f);
    });
    auto *dir_browse = new QPushButton(tr("Browse..."));
    connect(dir_browse, &QPushButton::clicked, this, [this] {
        QString d = QFileDialog::getExistingDirectory(this, tr("Working directory"));
        if (!d.isEmpty())
            directory_->setText(d);
    });
    auto *rate_row = new QWidget;
    auto *rate_layout = new QHBoxLayout(rate_row);
    rate_layout->setContentsMargins(0, 0, 0, 0);
    rate_layout->addWidget(rate_);
    rate_layout->addWidget(value_);
    connect(rate_, &QComboBox::currentIndexChanged, this,
            [this](int i) { value_->setEnabled(i != 0); });
    value_->setEnabled(false);

    auto *form = new QFormLayout;
    form->addRow(tr("Command:"), with_browse(command_, command_browse));
    form->addRow(tr("Arguments:"), arguments_);
    form->addRow(tr("Working directory:"), with_browse(directory_, dir_browse));
    form->addRow(tr("Events:"), events_);
    form->addRow(tr("Available:"), available_);
    form->addRow(tr("Sampling:"), rate_row);
    form->addRow(tr("Call graph:"), call_graph_);
    form->addRow(tr("Output file:"), output_);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(record_, QDialogButtonBox::ActionRole);
    buttons->addButton(stop_, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(record_, &QPushButton::clicked, this, [this] { record(); });
    connect(stop_, &QPushButton::clicked, this, &RecordDialog::stop);
    connect(recorder_, &Recorder::escalated, this, &RecordDialog::escalated);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(log_, 1);
    layout->addWidget(status_);
    layout->addWidget(buttons);

    connect(available_, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem *item) {
        QString e = events_->text().trimmed();
        events_->setText(e.isEmpty() ? item->text() : e + " " + item->text());
    });
    connect(recorder_, &Recorder::output, this, [this](const QString &text) {
        log_->moveCursor(QTextCursor::End);
        log_->insertPlainText(text);
        log_->ensureCursorVisible();
    });
    connect(recorder_, &Recorder::finished, this, &RecordDialog::finished);
    connect(recorder_, &Recorder::failedToStart, this, [this](const QString &error) {
        log_->appendPlainText(error);
        status_->setText(error);
        running(false);
    });
    setSettings(lastSettings());
    status_->setText(program_.isEmpty() ? tr("cpcprof is neither beside cpcprof-gui, nor in its "
                                             "build tree, nor on PATH: nothing can "
                                             "be recorded")
                                        : tr("Recording with %1").arg(program_));
    record_->setEnabled(!program_.isEmpty());
    resize(720, 640);
    listEvents();
}

RecordDialog::~RecordDialog() {
    // Their signals must not reach this dialog while its widgets go.
    recorder_->disconnect(this);
    if (list_) {
        list_->disconnect(this);
        list_->kill();
        list_->waitForFinished(1000);
    }
}

void RecordDialog::listEvents() {
    if (program_.isEmpty())
        return;
    list_ = new QProcess(this);
    connect(list_, &QProcess::finished, this, [this] {
        // stdout is the JSON document; what went wrong is on stderr.
        QString json = QString::fromUtf8(list_->readAllStandardOutput());
        available_->clear();
        available_->addItems(listed_events(json));
        if (available_->count() == 0) {
            QString why = QString::fromLocal8Bit(list_->readAllStandardError()).trimmed();
            available_->addItem(
                tr("(cpcprof list named no event: %1)").arg(why.isEmpty() ? json.trimmed() : why));
        }
        list_->deleteLater();
        list_ = nullptr;
        emit eventsListed();
    });
    connect(list_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        available_->addItem(tr("(cpcprof list cannot run: %1)").arg(list_->errorString()));
        emit eventsListed();
    });
    list_->start(program_, {"list", "--json"});
}

QStringList RecordDialog::availableEvents() const {
    QStringList out;
    for (int i = 0; i < available_->count(); ++i)
        if (!available_->item(i)->text().startsWith('('))
            out << available_->item(i)->text();
    return out;
}

RecordSettings RecordDialog::settings() const {
    RecordSettings s;
    s.command = command_->text();
    s.arguments = arguments_->text();
    s.directory = directory_->text();
    s.events = events_->text();
    s.rate = RecordSettings::Rate(rate_->currentIndex());
    s.value = value_->text();
    s.call_graph = call_graph_->currentText();
    s.output = output_->text();
    return s;
}

void RecordDialog::setSettings(const RecordSettings &s) {
    command_->setText(s.command);
    arguments_->setText(s.arguments);
    directory_->setText(s.directory);
    events_->setText(s.events);
    rate_->setCurrentIndex(int(s.rate));
    value_->setText(s.value);
    int cg = call_graph_->findText(s.call_graph);
    call_graph_->setCurrentIndex(cg < 0 ? 0 : cg);
    output_->setText(s.output);
}

RecordSettings RecordDialog::lastSettings() {
    QByteArray json = QSettings().value(kLastKey).toByteArray();
    if (json.isEmpty())
        return {};
    return RecordSettings::fromJson(QJsonDocument::fromJson(json).object());
}

bool RecordDialog::hasLastSettings() {
    return !QSettings().value(kLastKey).toByteArray().isEmpty();
}

bool RecordDialog::record() {
    QString error;
    RecordSettings s = settings();
    if (!recorder_->start(program_, s, &error)) {
        log_->appendPlainText(tr("Not started: %1").arg(error));
        status_->setText(tr("Not started: %1").arg(error));
        return false;
    }
    started_ = QDateTime::currentDateTime();
    QSettings().setValue(kLastKey, QJsonDocument(s.toJson()).toJson(QJsonDocument::Compact));
    emit recordingStarted();
    log_->clear();
    log_->insertPlainText("$ " + recorder_->commandLine() + "\n");
    status_->setText(tr("Recording %1 ...").arg(s.command));
    running(true);
    return true;
}

void RecordDialog::stop() {
    if (!recorder_->running())
        return;
    status_->setText(tr("Stopping (SIGINT) ..."));
    recorder_->stop();
}

void RecordDialog::escalated(const QString &signal) {
    QString text = tr("The command is still running: sent it %1 ...").arg(signal);
    status_->setText(text);
    log_->appendPlainText(text);
}

void RecordDialog::finished(int exit_code, const QString &output) {
    running(false);
    // A profile written by this run, not one left from before (the
    // recorder leaves the old file in place when the command cannot start).
    QFileInfo info(output);
    bool exists = info.isFile() && info.lastModified().secsTo(started_) <= 1;
    QString how = exit_code < 0 ? tr("cpcprof record crashed")
                                : tr("cpcprof record exited with status %1").arg(exit_code);
    if (recorder_->stopped())
        how += tr(" (stopped)");
    log_->moveCursor(QTextCursor::End);
    QString text = log_->toPlainText();
    log_->insertPlainText((text.isEmpty() || text.endsWith('\n') ? "" : "\n") + how + "\n");
    if (!exists) {
        status_->setText(how + tr("; no profile was written to %1").arg(output));
        return;
    }
    status_->setText(how + tr("; opening %1").arg(output));
    emit recorded(output);
}

void RecordDialog::running(bool on) {
    record_->setEnabled(!on && !program_.isEmpty());
    stop_->setEnabled(on);
    for (QWidget *w : std::initializer_list<QWidget *>{command_, arguments_, directory_, events_,
                                                       rate_, value_, call_graph_, output_})
        w->setEnabled(!on);
    if (!on)
        value_->setEnabled(rate_->currentIndex() != 0);
}

QString RecordDialog::outputText() const {
    return log_->toPlainText();
}

QString RecordDialog::status() const {
    return status_->text();
}

} // namespace cpcprof::gui
