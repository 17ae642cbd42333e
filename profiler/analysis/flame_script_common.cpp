// SPDX-License-Identifier: MIT
// Script shared by the SVG and HTML pages (flame_render.h): the URL
// fragment's actions, "#key=value&key&...", handed in order to handle.
#include "profiler/analysis/flame_render.h"

namespace cpcprof::flamegraph {

const char kActionsScript[] = R"JS(function runActions(handle) {
  var h = location.hash.slice(1);
  if (h === "") return;
  h.split("&").forEach(function (a) {
    var eq = a.indexOf("=");
    handle(eq < 0 ? a : a.slice(0, eq), eq < 0 ? "" : decodeURIComponent(a.slice(eq + 1)));
  });
}
)JS";

} // namespace cpcprof::flamegraph
