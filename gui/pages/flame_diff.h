// SPDX-License-Identifier: MIT
// The flame graph while comparing with a base profile: each frame of
// NEW's tree coloured by the change of its call path's self share of the
// chosen event against BASE (red: grew, blue: shrank), full colour at the
// largest change among the frames drawn (at least one point), as `cpcprof
// diff -o FILE.html` colours its frames; grey when the change is within
// the noise of the two runs' sample counts (analysis/share_test.h); and
// BASE's figures and the test for the tooltip.
#pragma once

#include "gui/model/diff_data.h"
#include "gui/model/flame_layout.h"

#include <QColor>
#include <QString>

#include <optional>

namespace cpcprof::gui {

// The change (percentage points) of node's self share of NEW's event;
// empty when BASE lacks the event or a side's total is 0.
std::optional<double> frame_change(const DiffData &d, DiffData::Tree t, uint32_t node, int event);

// frame_change when the change is beyond noise (DiffData::test), 0 when
// it is within noise; empty as frame_change.
std::optional<double> frame_signal(const DiffData &d, DiffData::Tree t, uint32_t node, int event);

// The largest |frame_signal| of the frames laid out.
double largest_change(const DiffData &d, DiffData::Tree t, const FlameLayout &layout, int event);

// analysis::change_colour, as `cpcprof diff`'s page; unknown is grey.
QColor change_colour(std::optional<double> points, double largest);

// Tooltip rows (HTML) of BASE's and NEW's figures of node for every common
// event, and the changes with their noise intervals.
QString diff_tooltip(const DiffData &d, DiffData::Tree t, uint32_t node);

// What the colours mean, for the page's legend (plain text).
QString diff_legend(const DiffData &d);

} // namespace cpcprof::gui
