// SPDX-License-Identifier: MIT
// main() of the cpcprof-gui widget tests: a QApplication on the platform
// the environment names (offscreen for the widget tests, xcb under Xvfb
// for the screenshots), settings in a directory of the test's own.
#include <QApplication>
#include <QDir>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char **argv) {
    ::testing::InitGoogleTest(&argc, argv);
    QTemporaryDir config;
    // QSettings of the window under test must not read or write the user's.
    setenv("XDG_CONFIG_HOME", qPrintable(config.path()), 1);
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", std::getenv("DISPLAY") ? "xcb" : "offscreen", 1);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("cpcprof-test");
    QApplication::setApplicationName("cpcprof-gui-test");
    return RUN_ALL_TESTS();
}
