// SPDX-License-Identifier: MIT
// What File > Record runs, without widgets: the settings of a recording
// (command, arguments, working directory, events, rate or period, call
// graph mode, output file), the `cpcprof record` command line they make,
// where the cpcprof program is, and the events `cpcprof list` names.
#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace cpcprof::gui {

struct RecordSettings {
    enum class Rate { Default, Frequency, Period };

    QString command;   // the program to record
    QString arguments; // its arguments, split as a shell would (quotes, escapes)
    QString directory; // working directory; "" = the viewer's
    QString events;    // separated by spaces, each EVENT[,PERIOD] as -e takes it:
                       // "cpu-clock page-faults", "cycles,100000 instructions"
    Rate rate = Rate::Default;
    QString value;                  // samples per second (Frequency) or events (Period)
    QString call_graph = "dwarf";   // dwarf, fp or none
    QString output = "out.cpcprof"; // relative to directory

    QJsonObject toJson() const;
    static RecordSettings fromJson(const QJsonObject &o);
};

// The arguments of cpcprof: {"record", ..., "-o", OUT, "--", CMD, ARGS...}.
// Empty with *error naming the problem (no command, a rate that is not a
// positive integer, an unknown call graph mode, unbalanced quotes).
QStringList record_arguments(const RecordSettings &s, QString *error);

// The output file's absolute path (relative paths are in s.directory).
QString output_path(const RecordSettings &s);

// The cpcprof program beside the viewer (app_dir: the viewer's
// directory), else the one of its build tree (app_dir is BUILD/gui/app
// and BUILD holds CMakeCache.txt: BUILD/profiler/cpcprof/cpcprof), else
// the first on PATH; "" when there is none.
QString find_cpcprof(const QString &app_dir = QCoreApplication::applicationDirPath());

// The event names `cpcprof list --json` names (its "generic", "platform"
// and "software" arrays, in that order, each name once), but those of its
// "kernel_only" array (they read 0 in the user mode recorded); none when
// the text is not that document.
QStringList listed_events(const QString &list_json);

} // namespace cpcprof::gui
