// SPDX-License-Identifier: MIT
// What the cpcprof-gui tests share: a QApplication for gtest, waiting for
// the event loop to bring a condition about, profiles recorded in the test
// (cpcprof-demo under `cpcprof record`), `cpcprof report` on the same
// file read back as the reference, and a context menu used as a user does.
#pragma once

#include "tests/view_common/view_harness.h" // demo_profile, cpcprof, TempDir

#include <QPoint>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <string>
#include <vector>

class QWidget;

namespace cpcprof::gui {
class MainWindow;
} // namespace cpcprof::gui

namespace cpcprof::test {

// Runs the event loop until cond() holds or ms pass; whether it held.
bool wait_for(const std::function<bool()> &cond, int ms = 30000);

// Opens path in w and waits until it is shown (the loader idle).
bool open_and_wait(gui::MainWindow &w, const std::string &path);

// cpcprof-demo recorded with two events, the sampling cpu-clock and the
// counted page-faults (whose cost sits elsewhere: make_list faults in its
// list); its path, or "" with a failed assertion.
const std::string &two_event_profile();

// `cpcprof report FILE --format csv --top 0 ARGS`, one map per row from
// the header's names to the fields.
std::vector<std::map<std::string, std::string>>
report_rows(const std::string &file, const std::vector<std::string> &args = {});
// The row of function name ("" fields if none).
std::map<std::string, std::string> report_row(const std::string &file, const std::string &name);
// The text report's header line that starts with "# " + key + ": ", after it.
std::string report_header(const std::string &file, const std::string &key);

// Right-clicks target at `at` (target's coordinates; a view's viewport)
// and picks item from the context menu that opens, or closes the menu when
// it has no such item.  Returns what the menu offered; empty when no menu
// opened.
QStringList pick_from_context_menu(QWidget *target, QPoint at, const QString &item);

// Fields of one CSV line (RFC 4180 quoting, as report writes it).
std::vector<std::string> csv_fields(const std::string &line);

} // namespace cpcprof::test
