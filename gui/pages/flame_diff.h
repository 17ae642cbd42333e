// SPDX-License-Identifier: MIT
// The flame graph while comparing with a base profile: each frame of
// NEW's tree coloured by the change of its call path's self share of the
// chosen event against BASE (red: grew, blue: shrank, grey: the same),
// full colour at the largest change among the frames drawn (at least one
// point), as `cpcprof diff -o FILE.html` colours its frames; and BASE's
// figures for the tooltip.
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

// The largest |frame_change| of the frames laid out.
double largest_change(const DiffData &d, DiffData::Tree t, const FlameLayout &layout, int event);

// analysis::change_colour, as `cpcprof diff`'s page; unknown is grey.
QColor change_colour(std::optional<double> points, double largest);

// Tooltip rows (HTML) of BASE's and NEW's figures of node for every common
// event, and the changes.
QString diff_tooltip(const DiffData &d, DiffData::Tree t, uint32_t node);

} // namespace cpcprof::gui
