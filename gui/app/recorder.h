// SPDX-License-Identifier: MIT
// `cpcprof record` run as a child process of the viewer: its output
// (standard output and error, merged) comes as it is printed; stop()
// sends SIGINT to its process group, as a terminal's ^C would (the
// recorder ignores it and the recorded command gets it; the recorder then
// finishes the file).  The child leads a process group of its own so
// that the viewer's own group is not signalled.
#pragma once

#include "gui/app/record_settings.h"

#include <QObject>
#include <QProcess>

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

  private:
    QProcess process_;
    RecordSettings settings_;
    QString command_line_;
    bool stopped_ = false;
};

} // namespace cpcprof::gui
