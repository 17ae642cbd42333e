// SPDX-License-Identifier: MIT
#include "gui/app/recorder.h"

#include <QDir>
#include <QFileInfo>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace cpcprof::gui {

namespace {

QString quoted(const QString &word) {
    static const QString plain =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%");
    bool ok = !word.isEmpty();
    for (QChar c : word)
        ok = ok && plain.contains(c);
    if (ok)
        return word;
    QString w = word;
    return "'" + w.replace("'", "'\\''") + "'";
}

} // namespace

Recorder::Recorder(QObject *parent) : QObject(parent) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    // A group of its own, as a shell gives a foreground job, so that stop()
    // reaches the recorder and its command and nothing else.
    process_.setChildProcessModifier([] { setpgid(0, 0); });
    connect(&process_, &QProcess::readyRead, this,
            [this] { emit output(QString::fromLocal8Bit(process_.readAll())); });
    connect(&process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        QByteArray rest = process_.readAll();
        if (!rest.isEmpty())
            emit output(QString::fromLocal8Bit(rest));
        escalation_.stop();
        emit finished(status == QProcess::NormalExit ? code : -1, output_path(settings_));
    });
    escalation_.setSingleShot(true);
    connect(&escalation_, &QTimer::timeout, this, &Recorder::escalate);
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            emit failedToStart(
                tr("%1 cannot be started: %2").arg(process_.program(), process_.errorString()));
    });
}

Recorder::~Recorder() {
    if (!running())
        return;
    // stop()'s escalation, waited for here (no event loop runs the timer).
    stop();
    escalation_.stop();
    for (int sig : {SIGTERM, SIGKILL}) {
        if (process_.waitForFinished(2000))
            return;
        for (pid_t pid : commandProcesses())
            ::kill(pid, sig);
    }
    if (!process_.waitForFinished(2000))
        process_.kill();
    process_.waitForFinished(1000);
}

bool Recorder::start(const QString &program, const RecordSettings &s, QString *error) {
    if (running()) {
        *error = tr("a recording is under way");
        return false;
    }
    if (program.isEmpty()) {
        *error = tr("the cpcprof program is neither beside cpcprof-gui, nor in its build tree, nor "
                    "on PATH");
        return false;
    }
    QStringList args = record_arguments(s, error);
    if (args.isEmpty())
        return false;
    if (!s.directory.isEmpty() && !QFileInfo(s.directory).isDir()) {
        *error = tr("the working directory %1 is not a directory").arg(s.directory);
        return false;
    }
    settings_ = s;
    stopped_ = false;
    QStringList words = {quoted(program)};
    for (const QString &a : args)
        words << quoted(a);
    command_line_ = words.join(' ');
    process_.setWorkingDirectory(s.directory);
    process_.start(program, args);
    return true;
}

void Recorder::stop() {
    qint64 pid = process_.processId();
    if (!running() || pid <= 0)
        return;
    stopped_ = true;
    // As a shell does: the group may not be made yet if the child has not
    // got to its setpgid; after its exec this fails harmlessly.
    setpgid(pid_t(pid), pid_t(pid));
    ::kill(-pid_t(pid), SIGINT);
    next_signal_ = 0;
    escalation_.start(escalation_ms_);
}

// The processes of the recorder's group but the recorder: what it records.
QList<pid_t> Recorder::commandProcesses() const {
    QList<pid_t> out;
    auto group = pid_t(process_.processId());
    const QStringList entries = QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &e : entries) {
        bool ok = false;
        pid_t pid = e.toInt(&ok);
        if (ok && pid != group && getpgid(pid) == group)
            out << pid;
    }
    return out;
}

void Recorder::escalate() {
    static const std::pair<int, const char *> kSignals[] = {{SIGTERM, "SIGTERM"},
                                                            {SIGKILL, "SIGKILL"}};
    if (!running() || next_signal_ >= 2)
        return;
    auto [sig, name] = kSignals[next_signal_++];
    for (pid_t pid : commandProcesses())
        ::kill(pid, sig);
    emit escalated(QString::fromLatin1(name));
    if (next_signal_ < 2)
        escalation_.start(escalation_ms_);
}

} // namespace cpcprof::gui
