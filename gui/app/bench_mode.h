// SPDX-License-Identifier: MIT
// Timings for tests/bench/bench_gui.py: with CPCPROF_GUI_BENCH=1 the
// window opens its file, and once the flame graph is painted it times an
// event switch, a zoom and a search (each until the canvas has painted
// the result), prints one JSON object to stdout and quits.  With --base
// it waits for the comparison to be shown too and gives its time from
// start as diff_ms (tests/bench/bench_gui_diff.py).
#pragma once

#include <QElapsedTimer>

namespace cpcprof::gui {

class MainWindow;

// clock: started when the process entered main().
void start_bench_mode(MainWindow *window, const QElapsedTimer &clock);

} // namespace cpcprof::gui
