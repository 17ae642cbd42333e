// SPDX-License-Identifier: MIT
// `cpcprof record` run as a child process of the viewer: its output
// (standard output and error, merged) comes as it is printed; stop()
// sends SIGINT to its process group, as a terminal's ^C would (the
// recorder ignores it and the recorded command gets it; the recorder then
// finishes the file).  A command that ignores SIGINT gets SIGTERM after
// escalationDelay, then SIGKILL after as long again: these go to the
// group's other processes, not to the recorder, which finishes the file
// when they are gone.  The child leads a process group of its own so
// that the viewer's own group is not signalled.
#pragma once

#include "gui/app/record_settings.h"

#include <QList>
#include <QObject>
#include <QProcess>
#include <QTimer>

#include <sys/types.h>

namespace cpcprof::gui {

class Recorder : public QObject {
    Q_OBJECT
  public:
    explicit Recorder(QObject *parent = nullptr);
    // A recording under way is stopped (SIGINT) and waited for, briefly.
    ~Recorder() override;

    // Starts program (cpcprof) with record_arguments(s); false with
    // *error when the settings are refused or nothing can run.
    bool start(const QString &program, const RecordSettings &s, QString *error);
    void stop();
    // How long stop() waits before each stronger signal (default 3 s).
    void setEscalationDelay(int ms) { escalation_ms_ = ms; }
    bool running() const { return process_.state() != QProcess::NotRunning; }
    bool stopped() const { return stopped_; }
    const RecordSettings &settings() const { return settings_; }
    // The command line as a shell would show it.
    QString commandLine() const { return command_line_; }

  signals:
    void output(const QString &text);
    // The recorder exited: exit_code is its status (or -1 after a crash);
    // output is the profile's path.
    void finished(int exit_code, const QString &output);
    void failedToStart(const QString &error);
    // stop() sent a stronger signal ("SIGTERM", "SIGKILL") to the command.
    void escalated(const QString &signal);

  private:
    void escalate();
    QList<pid_t> commandProcesses() const;

    QProcess process_;
    QTimer escalation_;
    int escalation_ms_ = 3000;
    int next_signal_ = 0; // index into the escalation's signals
    RecordSettings settings_;
    QString command_line_;
    bool stopped_ = false;
};

} // namespace cpcprof::gui
