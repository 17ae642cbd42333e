// SPDX-License-Identifier: MIT
// The text of a flame graph frame's tooltip: the function, its module and
// source file, and for every recorded event its self and total cost (value
// and share of the run's total), then the derived ratios.
#pragma once

#include "gui/model/profile_data.h"

#include <QString>

namespace cpcprof::gui {

QString frame_tooltip(const ProfileData &profile, const analysis::CallTree &tree, uint32_t node);

// One line on the frame for event, plain text: "f (libx.so): total
// 54.55 % (6.0 ms) of cpu-clock, self 9.09 % (1.0 ms), 12 samples".
QString frame_summary(const ProfileData &profile, const analysis::CallTree &tree, uint32_t node,
                      int event);

} // namespace cpcprof::gui
