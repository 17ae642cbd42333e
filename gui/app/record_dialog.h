// SPDX-License-Identifier: MIT
// File > Record: a dialog that records a program with `cpcprof record`
// (run by a Recorder, recorder.h) and hands the profile to the window.
// Fields: command, arguments, working directory, events (with the events
// `cpcprof list` says this machine can count, double-click adds one),
// rate or period, call graph mode, output file.  The recorder's output
// shows as it is printed; Stop sends SIGINT as a terminal's ^C would.
// When the recorder has finished and the output file exists, recorded()
// gives its path (the window opens it).  The last settings are kept in
// QSettings ("record/last") for File > Re-run Last Recording.
#pragma once

#include "gui/app/record_settings.h"

#include <QDateTime>
#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QProcess;
class QPushButton;

namespace cpcprof::gui {

class Recorder;

class RecordDialog : public QDialog {
    Q_OBJECT
  public:
    explicit RecordDialog(QWidget *parent = nullptr);
    // A recording under way is stopped (Recorder); `cpcprof list` killed.
    ~RecordDialog() override;

    RecordSettings settings() const;
    void setSettings(const RecordSettings &s);
    // The settings of the last recording started (defaults when none).
    static RecordSettings lastSettings();
    static bool hasLastSettings();

    // Starts recording with the fields' settings; false (and the reason
    // in the output pane) when it cannot start.
    bool record();
    // SIGINT, then SIGTERM and SIGKILL to a command that ignores it, each
    // said in the status line and the output (Recorder::stop).
    void stop();
    Recorder *recorder() const { return recorder_; }
    // The recorder's output so far, and the status line.
    QString outputText() const;
    QString status() const;
    // The events `cpcprof list` named (empty until it has answered).
    QStringList availableEvents() const;

  signals:
    void recorded(const QString &path);
    void recordingStarted();
    // `cpcprof list` has answered (or failed: availableEvents() is empty).
    void eventsListed();

  private:
    void listEvents();
    void finished(int exit_code, const QString &output);
    void escalated(const QString &signal);
    void running(bool on);

    Recorder *recorder_;
    QString program_;
    QLineEdit *command_, *arguments_, *directory_, *events_, *value_, *output_;
    QComboBox *rate_, *call_graph_;
    QListWidget *available_;
    QPlainTextEdit *log_;
    QLabel *status_;
    QPushButton *record_, *stop_;
    QProcess *list_ = nullptr;
    QDateTime started_;
};

} // namespace cpcprof::gui
