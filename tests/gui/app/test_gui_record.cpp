// SPDX-License-Identifier: MIT
// File > Record driven as a user does: the dialog lists what `cpcprof
// list` says this machine can count, records the bundled workload
// (tests/record/targets) with `cpcprof record` as a child process, shows
// its output and the window opens the result; Stop sends SIGINT as a
// terminal would and the profile recorded so far opens; Re-run Last
// Recording records again with the same settings.
#include "tests/gui/app/gui_harness.h"

#include "gui/app/main_window.h"
#include "gui/app/record_dialog.h"
#include "gui/app/recorder.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace cpcprof::test {
namespace {

using gui::MainWindow;
using gui::RecordDialog;
using gui::RecordSettings;

class GuiRecord : public ::testing::Test {
  protected:
    void SetUp() override {
#ifndef WORKLOAD_EXE
        GTEST_SKIP() << "the bundled workload (tests/record/targets) is not built";
#else
        SKIP_WITHOUT_DEMO_RECORDING();
        // The viewer finds cpcprof beside itself, else on PATH: here on PATH.
        std::string dir = QFileInfo(CPCPROF_EXE).absolutePath().toStdString();
        QByteArray path = qgetenv("PATH");
        if (!path.startsWith(QByteArray::fromStdString(dir + ":")))
            qputenv("PATH", QByteArray::fromStdString(dir + ":") + path);
        temp = std::make_unique<TempDir>("cpcprof-gui-record");
        w = std::make_unique<MainWindow>();
        w->resize(1000, 700);
        w->show();
        dialog = w->recordDialog();
        dialog->show();
#endif
    }
    RecordSettings workload(const char *seconds, const char *out) const {
        RecordSettings s;
#ifdef WORKLOAD_EXE
        s.command = WORKLOAD_EXE;
#endif
        s.arguments = QString("--seconds %1").arg(seconds);
        s.directory = QString::fromStdString(temp->path());
        s.events = "cpu-clock";
        s.rate = RecordSettings::Rate::Frequency;
        s.value = "1000";
        s.call_graph = "fp";
        s.output = out;
        return s;
    }
    bool shown(const QString &path) const {
        return w->profile() && QString::fromStdString(w->profile()->path) == path;
    }
    // Functions of the profile shown, by name.
    bool has_function(const std::string &name) const {
        for (const auto &f : w->profile()->query->functions())
            if (f.name == name)
                return true;
        return false;
    }

    std::unique_ptr<TempDir> temp;
    std::unique_ptr<MainWindow> w;
    RecordDialog *dialog = nullptr;
};

TEST_F(GuiRecord, ListsEventsRecordsOpensAndReruns) {
    ASSERT_TRUE(wait_for([&] { return !dialog->availableEvents().isEmpty(); }, 20000))
        << dialog->status().toStdString();
    QStringList events = dialog->availableEvents();
    EXPECT_TRUE(events.contains("cpu-clock")) << events.join(' ').toStdString();
    EXPECT_TRUE(events.contains("page-faults")) << events.join(' ').toStdString();
    EXPECT_FALSE(events.contains("context-switches"))
        << "counts in kernel mode only, reads 0 here: " << events.join(' ').toStdString();

    dialog->setSettings(workload("0.5", "rec.cpcprof"));
    QString out = QString::fromStdString(temp->path()) + "/rec.cpcprof";
    ASSERT_TRUE(dialog->record()) << dialog->outputText().toStdString();
    EXPECT_TRUE(dialog->recorder()->running());
    ASSERT_TRUE(wait_for([&] { return shown(out); }, 90000))
        << dialog->status().toStdString() << "\n"
        << dialog->outputText().toStdString();
    EXPECT_TRUE(dialog->outputText().startsWith("$ ")) << dialog->outputText().toStdString();
    EXPECT_TRUE(dialog->outputText().contains(" record -e cpu-clock -F 1000 --call-graph fp"));
    EXPECT_TRUE(dialog->outputText().contains("exited with status 0"))
        << dialog->outputText().toStdString();
    // Recorded about 0.5 s of CPU at 1000 samples/s.
    uint64_t samples = w->profile()->query->samples_kept();
    EXPECT_GT(samples, 100u);
    EXPECT_TRUE(has_function("wl_compute") || has_function("wl_chase") || has_function("wl_leaf"));

    // Re-run: the same settings again, the new file shown.
    ASSERT_TRUE(w->findChild<QAction *>("rerunRecording")->isEnabled());
    gui::ProfilePtr first = w->profile();
    w->rerunRecording();
    ASSERT_TRUE(wait_for([&] { return w->profile() != first && shown(out); }, 90000))
        << dialog->outputText().toStdString();
    EXPECT_GT(w->profile()->query->samples_kept(), 100u);
}

TEST_F(GuiRecord, StopSendsSigintAndOpensWhatWasRecorded) {
    dialog->setSettings(workload("60", "stopped.cpcprof"));
    QString out = QString::fromStdString(temp->path()) + "/stopped.cpcprof";
    ASSERT_TRUE(dialog->record());
    // Wait until the recorder has created the file (the command runs).
    ASSERT_TRUE(wait_for([&] { return QFileInfo(out).exists(); }, 30000));
    wait_for([] { return false; }, 1000);
    auto t0 = std::chrono::steady_clock::now();
    dialog->stop();
    ASSERT_TRUE(wait_for([&] { return shown(out); }, 60000))
        << dialog->status().toStdString() << "\n"
        << dialog->outputText().toStdString();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    EXPECT_TRUE(dialog->recorder()->stopped());
    EXPECT_TRUE(dialog->outputText().contains("(stopped)")) << dialog->outputText().toStdString();
    EXPECT_GT(w->profile()->query->samples_kept(), 0u);
}

// A command that ignores SIGINT (and then SIGTERM) is stopped all the
// same: SIGTERM, then SIGKILL, each said; the recorder is not killed, so
// the profile is finished and opens.
TEST_F(GuiRecord, StopEscalatesWhenTheCommandIgnoresSigint) {
    for (const char *ignored : {"INT", "INT TERM"}) {
        RecordSettings s = workload("60", "stubborn.cpcprof");
        s.command = "/bin/sh";
        s.arguments = QString("-c 'trap \"\" %1; while :; do :; done'").arg(ignored);
        dialog->setSettings(s);
        dialog->recorder()->setEscalationDelay(1000);
        QString out = QString::fromStdString(temp->path()) + "/stubborn.cpcprof";
        QFile::remove(out);
        ASSERT_TRUE(dialog->record()) << dialog->outputText().toStdString();
        ASSERT_TRUE(wait_for([&] { return QFileInfo(out).exists(); }, 30000));
        wait_for([] { return false; }, 500);
        dialog->stop();
        ASSERT_TRUE(wait_for([&] { return !dialog->recorder()->running(); }, 30000))
            << dialog->outputText().toStdString();
        QString log = dialog->outputText();
        EXPECT_TRUE(log.contains("sent it SIGTERM")) << ignored << log.toStdString();
        EXPECT_EQ(log.contains("sent it SIGKILL"), std::string(ignored) == "INT TERM")
            << ignored << log.toStdString();
        EXPECT_TRUE(log.contains("(stopped)")) << log.toStdString();
        ASSERT_TRUE(wait_for([&] { return shown(out); }, 30000)) << log.toStdString();
        EXPECT_GT(w->profile()->query->samples_kept(), 0u);
    }
}

TEST_F(GuiRecord, SettingsThatCannotRunAreRefusedWithTheReason) {
    RecordSettings s = workload("0.5", "x.cpcprof");
    s.command.clear();
    dialog->setSettings(s);
    EXPECT_FALSE(dialog->record());
    EXPECT_TRUE(dialog->status().contains("no command")) << dialog->status().toStdString();
    s = workload("0.5", "x.cpcprof");
    s.value = "fast";
    dialog->setSettings(s);
    EXPECT_FALSE(dialog->record());
    EXPECT_TRUE(dialog->status().contains("\"fast\" is not a positive whole number"))
        << dialog->status().toStdString();
    s = workload("0.5", "x.cpcprof");
    s.directory = QString::fromStdString(temp->path()) + "/missing";
    dialog->setSettings(s);
    EXPECT_FALSE(dialog->record());
    EXPECT_TRUE(dialog->status().contains("is not a directory")) << dialog->status().toStdString();
    s = workload("0.5", "x.cpcprof");
    s.arguments = "--seconds '0.5";
    dialog->setSettings(s);
    EXPECT_FALSE(dialog->record());
    EXPECT_TRUE(dialog->status().contains("unclosed single quote"))
        << dialog->status().toStdString();
    EXPECT_FALSE(dialog->recorder()->running());
}

TEST(RecordSettings, ArgumentsAreSplitAsAShellWould) {
    RecordSettings s;
    s.command = "/bin/echo";
    s.arguments = R"(a 'b c' "d \"e\"" f\ g)";
    s.directory = "/tmp";
    s.events = "cycles,100000  instructions";
    s.rate = RecordSettings::Rate::Period;
    s.value = "5000";
    s.call_graph = "none";
    s.output = "o.cpcprof";
    QString error;
    QStringList args = gui::record_arguments(s, &error);
    EXPECT_EQ(args, (QStringList{"record", "-e", "cycles,100000", "-e", "instructions", "-c",
                                 "5000", "--call-graph", "none", "-o", "/tmp/o.cpcprof", "--",
                                 "/bin/echo", "a", "b c", "d \"e\"", "f g"}))
        << args.join('|').toStdString() << " " << error.toStdString();
    EXPECT_EQ(gui::RecordSettings::fromJson(s.toJson()).toJson(), s.toJson());
    // `cpcprof list --json`: generic, platform and software events, each once.
    EXPECT_EQ(gui::listed_events("{\"hardware_pmu\": false, \"interface\": \"x\", \"generic\": "
                                 "[\"PAPI_tot_cyc\"], \"platform\": [], \"software\": "
                                 "[\"cpu-clock\", \"page-faults\", \"cpu-clock\"]}"),
              (QStringList{"PAPI_tot_cyc", "cpu-clock", "page-faults"}));
    EXPECT_EQ(gui::listed_events("software events:\n  cpu-clock\n"), QStringList{});
    // Events that count in kernel mode only are not offered.
    EXPECT_EQ(gui::listed_events("{\"generic\": [], \"platform\": [], \"software\": "
                                 "[\"cpu-clock\", \"context-switches\", \"cs\"], "
                                 "\"kernel_only\": [\"context-switches\", \"cs\"]}"),
              QStringList{"cpu-clock"});
}

// The cpcprof the viewer runs: the one in its own directory, else the
// first on PATH, else none (and the dialog says so).
TEST(RecordSettings, CpcprofBesideTheViewerElseOnPath) {
    QString beside = QCoreApplication::applicationDirPath() + "/cpcprof";
    if (QFileInfo::exists(beside))
        GTEST_SKIP() << beside.toStdString() << " exists already: not this test's to remove";
    QByteArray path = qgetenv("PATH");
    QString real = QFileInfo(CPCPROF_EXE).absoluteFilePath();
    qputenv("PATH", QFileInfo(real).absolutePath().toLocal8Bit());
    EXPECT_EQ(gui::find_cpcprof(), real);
    qputenv("PATH", "/nonexistent");
    EXPECT_EQ(gui::find_cpcprof(), QString());
    {
        RecordDialog d;
        EXPECT_TRUE(
            d.status().contains("neither beside cpcprof-gui, nor in its build tree, nor on PATH"))
            << d.status().toStdString();
        EXPECT_FALSE(d.record());
    }
    ASSERT_TRUE(QFile::link(real, beside));
    EXPECT_EQ(gui::find_cpcprof(), beside);
    QFile::remove(beside);
    qputenv("PATH", path);
}

// Run from a build tree as the README builds it (BUILD/gui/app/cpcprof-gui),
// the viewer records with that tree's cpcprof, before any on PATH; a
// directory of that name outside a build tree is not taken for one.
TEST(RecordSettings, CpcprofOfTheViewersBuildTree) {
    QTemporaryDir tmp;
    ASSERT_TRUE(tmp.isValid());
    QDir root(tmp.path());
    ASSERT_TRUE(root.mkpath("build/gui/app") && root.mkpath("build/profiler/cpcprof"));
    QString app = root.filePath("build/gui/app");
    QString built = root.filePath("build/profiler/cpcprof/cpcprof");
    ASSERT_TRUE(QFile::link(QFileInfo(CPCPROF_EXE).absoluteFilePath(), built));
    QByteArray path = qgetenv("PATH");
    qputenv("PATH", "/nonexistent");
    EXPECT_EQ(gui::find_cpcprof(app), QString()) << "no CMakeCache.txt: not a build tree";
    QFile cache(root.filePath("build/CMakeCache.txt"));
    ASSERT_TRUE(cache.open(QIODevice::WriteOnly));
    cache.close();
    EXPECT_EQ(gui::find_cpcprof(app), QFileInfo(built).absoluteFilePath());
    qputenv("PATH", path);
}

} // namespace
} // namespace cpcprof::test
