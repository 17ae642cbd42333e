// SPDX-License-Identifier: MIT
#include "gui/app/record_settings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>

namespace cpcprof::gui {

QJsonObject RecordSettings::toJson() const {
    return {{"command", command},       {"arguments", arguments}, {"directory", directory},
            {"events", events},         {"rate", int(rate)},      {"value", value},
            {"call_graph", call_graph}, {"output", output}};
}

RecordSettings RecordSettings::fromJson(const QJsonObject &o) {
    RecordSettings s;
    s.command = o.value("command").toString();
    s.arguments = o.value("arguments").toString();
    s.directory = o.value("directory").toString();
    s.events = o.value("events").toString();
    int rate = o.value("rate").toInt();
    s.rate = rate == 1 ? Rate::Frequency : rate == 2 ? Rate::Period : Rate::Default;
    s.value = o.value("value").toString();
    s.call_graph = o.value("call_graph").toString("dwarf");
    s.output = o.value("output").toString("out.cpcprof");
    return s;
}

namespace {

// Words of a command line as a POSIX shell splits them (no expansion):
// single quotes, double quotes with \\ \" \$ \` escapes, backslash outside.
bool split_words(const QString &line, QStringList *out, QString *error) {
    QString word;
    bool in_word = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        QChar c = line[i];
        if (c == '\'') {
            qsizetype end = line.indexOf('\'', i + 1);
            if (end < 0) {
                *error = QObject::tr("the arguments have an unclosed single quote");
                return false;
            }
            word += line.mid(i + 1, end - i - 1);
            in_word = true;
            i = end;
        } else if (c == '"') {
            qsizetype j = i + 1;
            for (; j < line.size() && line[j] != '"'; ++j) {
                if (line[j] == '\\' && j + 1 < line.size() &&
                    QStringLiteral("\\\"$`").contains(line[j + 1]))
                    ++j;
                word += line[j];
            }
            if (j >= line.size()) {
                *error = QObject::tr("the arguments have an unclosed double quote");
                return false;
            }
            in_word = true;
            i = j;
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            in_word = true;
        } else if (c.isSpace()) {
            if (in_word)
                out->append(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word)
        out->append(word);
    return true;
}

} // namespace

QStringList record_arguments(const RecordSettings &s, QString *error) {
    if (s.command.trimmed().isEmpty()) {
        *error = QObject::tr("no command to record");
        return {};
    }
    QStringList args = {"record"};
    const QStringList events = s.events.split(QRegularExpression("[\\s;]+"), Qt::SkipEmptyParts);
    for (const QString &e : events)
        args << "-e" << e;
    if (s.rate != RecordSettings::Rate::Default) {
        bool ok = false;
        qulonglong v = s.value.trimmed().toULongLong(&ok);
        if (!ok || v == 0) {
            *error = QObject::tr("the %1 \"%2\" is not a positive whole number")
                         .arg(s.rate == RecordSettings::Rate::Frequency ? QObject::tr("rate")
                                                                        : QObject::tr("period"),
                              s.value);
            return {};
        }
        args << (s.rate == RecordSettings::Rate::Frequency ? "-F" : "-c") << QString::number(v);
    }
    if (s.call_graph != "dwarf" && s.call_graph != "fp" && s.call_graph != "none") {
        *error =
            QObject::tr("unknown call graph mode \"%1\" (dwarf, fp or none)").arg(s.call_graph);
        return {};
    }
    args << "--call-graph" << s.call_graph;
    args << "-o" << output_path(s);
    QStringList words;
    if (!split_words(s.arguments, &words, error))
        return {};
    args << "--" << s.command.trimmed() << words;
    return args;
}

QString output_path(const RecordSettings &s) {
    QString out = s.output.trimmed().isEmpty() ? QStringLiteral("out.cpcprof") : s.output.trimmed();
    QDir dir(s.directory.isEmpty() ? QDir::currentPath() : s.directory);
    return QFileInfo(dir, out).absoluteFilePath();
}

QString find_cpcprof(const QString &app_dir) {
    QFileInfo beside(app_dir + "/cpcprof");
    if (beside.isFile() && beside.isExecutable())
        return beside.absoluteFilePath();
    QDir build(app_dir + "/../..");
    if (QDir(app_dir).absolutePath().endsWith("/gui/app") && build.exists("CMakeCache.txt")) {
        QFileInfo built(build.filePath("profiler/cpcprof/cpcprof"));
        if (built.isFile() && built.isExecutable())
            return built.absoluteFilePath();
    }
    return QStandardPaths::findExecutable("cpcprof");
}

QStringList listed_events(const QString &list_json) {
    QStringList out;
    const QJsonObject doc = QJsonDocument::fromJson(list_json.toUtf8()).object();
    QStringList kernel_only;
    for (const auto &v : doc.value(QLatin1String("kernel_only")).toArray())
        kernel_only << v.toString();
    for (const char *group : {"generic", "platform", "software"}) {
        const QJsonArray names = doc.value(QLatin1String(group)).toArray();
        for (const auto &v : names) {
            QString name = v.toString();
            if (!name.isEmpty() && !out.contains(name) && !kernel_only.contains(name))
                out << name;
        }
    }
    return out;
}

} // namespace cpcprof::gui
