// SPDX-License-Identifier: MIT
// The two outputs of `cpcprof flamegraph`, which the viewer's File >
// Export writes too (namespace flamegraph: the pages' renderers).
//
// SVG: a static picture in the structure of Brendan Gregg's flamegraph.pl
// (one <g> per frame with a <title> tooltip, a <rect> and a <text>
// label), readable without scripts (an <img>, an image viewer), plus an
// inline script for browsers: click a frame to zoom into it, "Reset
// Zoom", "Search" (prompt) colours matches and shows their share.  One
// event weighs the frames; frames under kSvgMinShare of the total are
// left out and counted on the picture.
//
// HTML: one self-contained page (no external script, font, style or URL):
// the call tree as JSON in a <script type="application/json"> element and
// a small script that draws it with positioned <div>s: click to zoom (the
// frames below are kept at full width, faded), search box with the
// matched share, tooltips with every event's value and share, an event
// selector when the run recorded several.  Frames under kHtmlMinShare of
// every weight are left out.
//
// Both pages answer to a URL fragment of actions, applied in order after
// loading, so that a headless browser can drive them:
//   #click=NAME&search=TEXT&reset&event=NAME&tip=NAME&dump
// (event and tip, hovering over a frame, in the HTML page only).
// "dump" appends the visible frames to the hidden element #test-state,
// one line per frame: "frame\tNAME\tX\tW\tFLAGS\tROW" (X and W fractions
// of the graph's width, FLAGS among anc/m/inl/nosym, ROW 0 the top row of
// frames), then "matched\tTEXT", "tip\tLINE | LINE..." (HTML) and
// "zoom\tNAME".  Script errors are appended there too as "error\tMESSAGE".
#pragma once

#include "profiler/analysis/flame_model.h"

#include <string>

namespace cpcprof::flamegraph {

inline constexpr double kSvgMinShare = 0.001;   // 0.1 %
inline constexpr double kHtmlMinShare = 0.0001; // 0.01 %

struct RenderOptions {
    std::string title;
    std::string subtitle; // what was read: file, samples, filter
    int event = 0;        // the weight (index in Query::events())
    bool inverted = false;
};

std::string render_svg(const analysis::Query &q, const analysis::FlameModel &m,
                       const RenderOptions &o);
std::string render_html(const analysis::Query &q, const analysis::FlameModel &m,
                        const RenderOptions &o);

// The tooltip of a frame: name, then one line each for inlining, module,
// file, self and total samples, and each event's total, with shares of
// the whole graph.
std::string frame_tooltip(const analysis::Query &q, const analysis::FlameModel &m,
                          const analysis::Frame &f);

// The scripts and styles the pages embed (flame_script_*.cpp); both
// pages start with kActionsScript.
extern const char kActionsScript[];
extern const char kSvgScript[];
extern const char kHtmlStyle[];
extern const char kHtmlScript[];

} // namespace cpcprof::flamegraph
