// SPDX-License-Identifier: MIT
// The tree and table pages of the window (top-down, bottom-up,
// caller/callee, hotspots), made in one place so that the window does not
// depend on their classes: each page is a widget and the three calls the
// window makes on it (gui/views' pages).
#pragma once

#include "gui/model/diff_data.h"
#include "gui/model/profile_data.h"

#include <QWidget>

#include <functional>

namespace cpcprof::gui {

struct Page {
    QWidget *widget = nullptr;
    std::function<void(ProfilePtr)> setProfile;
    std::function<void(int)> setEvent;
    std::function<void(uint32_t)> selectFunction;
    // Delta columns against a base (nullptr: none); the page is filled
    // anew, so that its rows are expanded and selected as after setProfile.
    std::function<void(DiffPtr)> setDiff;
};

struct Pages {
    Page top_down, bottom_up, caller_callee, hotspots;
};

// activated is called with the function a page's user activated
// (functionActivated), to show it in the other views; filter with the
// function whose stacks the user keeps (true) or hides (filterByFunction).
Pages make_pages(QWidget *parent, const std::function<void(uint32_t)> &activated,
                 const std::function<void(uint32_t, bool)> &filter);

} // namespace cpcprof::gui
