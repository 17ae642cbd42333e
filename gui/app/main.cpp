// SPDX-License-Identifier: MIT
// cpcprof-gui [--base BASE] [FILE]: the viewer.  Without FILE it opens
// out.cpcprof of the current directory when there is one, else an empty
// window (File > Open).  --base: FILE compared with BASE (as cpcprof diff).
#include "gui/app/bench_mode.h"
#include "gui/app/main_window.h"
#include "profiler/analysis/source_access.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>

#include <cstdio>

int main(int argc, char **argv) {
    QElapsedTimer clock;
    clock.start();
    QApplication app(argc, argv);
    QApplication::setOrganizationName("cpcprof");
    QApplication::setApplicationName("cpcprof-gui");
    QCommandLineParser parser;
    parser.setApplicationDescription("cpcprof-gui: browse a cpcprof profile");
    parser.addHelpOption();
    parser.addPositionalArgument("FILE", "the profile to open (default: ./out.cpcprof)");
    QCommandLineOption source_dir("source-dir", "look for source files under DIR too (repeatable)",
                                  "DIR");
    QCommandLineOption path_map("path-map", "a source path under OLD is looked for under NEW",
                                "OLD=NEW");
    parser.addOptions({source_dir, path_map});
    QCommandLineOption base(
        "base", "compare FILE with the profile BASE (as cpcprof diff BASE FILE)", "BASE");
    parser.addOption(base);
    parser.process(app);
    QStringList args = parser.positionalArguments();
    if (args.size() > 1) {
        std::fprintf(stderr, "cpcprof-gui: one FILE at most (got %lld)\n",
                     static_cast<long long>(args.size()));
        return 2;
    }
    QString file = args.isEmpty() ? QString() : args.front();
    if (file.isEmpty() && QFileInfo::exists("out.cpcprof"))
        file = "out.cpcprof";
    if (parser.isSet(base) && file.isEmpty()) {
        std::fprintf(stderr, "cpcprof-gui: --base needs a FILE to compare with it\n");
        return 2;
    }

    for (const QString &m : parser.values(path_map)) {
        std::pair<std::string, std::string> map;
        std::string error;
        if (!cpcprof::analysis::parse_remap(m.toStdString(), &map, &error)) {
            std::fprintf(stderr, "cpcprof-gui: --path-map: %s\n", error.c_str());
            return 2;
        }
    }

    cpcprof::gui::MainWindow window;
    window.setSourceOptions(parser.values(source_dir), parser.values(path_map));
    bool bench = qEnvironmentVariableIntValue("CPCPROF_GUI_BENCH") != 0;
    if (bench) {
        if (file.isEmpty()) {
            std::fprintf(stderr, "cpcprof-gui: CPCPROF_GUI_BENCH needs a FILE\n");
            return 2;
        }
        cpcprof::gui::start_bench_mode(&window, clock);
    }
    window.show();
    if (!file.isEmpty())
        window.openFile(file);
    if (parser.isSet(base))
        window.compareWith(parser.value(base));
    return app.exec();
}
