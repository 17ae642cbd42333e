// SPDX-License-Identifier: MIT
// The script inside the SVG flame graph (flame_render.h): zoom, search,
// details line, URL-fragment actions.  The picture is complete without it.
#include "profiler/analysis/flame_render.h"

namespace cpcprof::flamegraph {

const char kSvgScript[] = R"JS("use strict";
var frames = [], details, matched, unzoom, state, inverted, W = 1200, XPAD = 10;
var FONT = 12, CHARW = 0.59, EPS = 0.01;
function log(line) { state.textContent += line + "\n"; }
function fit(name, w) {
  var n = Math.floor((w - 6) / (FONT * CHARW));
  if (n < 3) return "";
  var chars = Array.from(name);
  return chars.length <= n ? name : chars.slice(0, n - 2).join("") + "..";
}
function init(evt) {
  state = document.getElementById("test-state");
  window.addEventListener("error", function (e) { log("error\t" + e.message); });
  details = document.getElementById("details");
  matched = document.getElementById("matched");
  unzoom = document.getElementById("unzoom");
  inverted = document.documentElement.getAttribute("data-inverted") === "1";
  var gs = document.getElementById("frames").children;
  for (var i = 0; i < gs.length; i++) {
    var g = gs[i], r = g.querySelector("rect");
    var tip = g.querySelector("title").textContent;
    frames.push({g: g, rect: r, text: g.querySelector("text"), tip: tip,
                 name: tip.split("\n")[0], fill: r.getAttribute("fill"),
                 x: +r.getAttribute("x"), w: +r.getAttribute("width"),
                 y: +r.getAttribute("y"), kind: g.getAttribute("class") || ""});
    g.fg = frames[i];
  }
  var box = document.getElementById("frames");
  box.addEventListener("click", function (e) {
    var g = e.target.closest("g"); if (g && g.fg) zoom(g.fg);
  });
  box.addEventListener("mouseover", function (e) {
    var g = e.target.closest("g");
    if (g && g.fg) details.textContent = g.fg.tip.split("\n").join(", ");
  });
  unzoom.addEventListener("click", reset);
  document.getElementById("search").addEventListener("click", function () {
    var t = prompt("Search (part of a function name, any case)", "");
    if (t !== null) search(t);
  });
  actions();
}
function below(f, z) { return inverted ? f.y < z.y : f.y > z.y; }
function zoom(z) {
  var ratio = (W - 2 * XPAD) / z.w;
  frames.forEach(function (f) {
    var cls = "", x = f.x, w = f.w;
    var covers = f.x <= z.x + EPS && f.x + f.w >= z.x + z.w - EPS;
    var inside = f.x >= z.x - EPS && f.x + f.w <= z.x + z.w + EPS;
    if (f === z || (covers && below(f, z))) {
      x = XPAD; w = W - 2 * XPAD; if (f !== z) cls = "anc";
    } else if (inside && !below(f, z) && f.y !== z.y) {
      x = XPAD + (f.x - z.x) * ratio; w = f.w * ratio;
    } else {
      cls = "hide";
    }
    show(f, x, w, cls);
  });
  unzoom.setAttribute("class", "");
  state.zoomed = z.name;
}
function show(f, x, w, cls) {
  f.g.setAttribute("class", (f.kind + " " + cls).trim());
  f.cls = cls;
  f.rect.setAttribute("x", x.toFixed(3));
  f.rect.setAttribute("width", w.toFixed(3));
  f.text.setAttribute("x", (x + 3).toFixed(1));
  f.text.textContent = fit(f.name, w);
  f.cx = x; f.cw = w;
}
function reset() {
  frames.forEach(function (f) { show(f, f.x, f.w, ""); });
  unzoom.setAttribute("class", "hide");
  state.zoomed = "";
}
function search(term) {
  term = term.toLowerCase();
  var hits = [];
  frames.forEach(function (f) {
    var hit = term !== "" && f.name.toLowerCase().indexOf(term) >= 0;
    f.rect.setAttribute("fill", hit ? "rgb(230,0,230)" : f.fill);
    f.hit = hit;
    if (hit) hits.push([f.x, f.x + f.w]);
  });
  // The share of the width under a match (nested matches counted once).
  hits.sort(function (a, b) { return a[0] - b[0]; });
  var sum = 0, end = -1;
  hits.forEach(function (h) {
    if (h[0] >= end - EPS) { sum += h[1] - h[0]; end = h[1]; }
    else if (h[1] > end) { sum += h[1] - end; end = h[1]; }
  });
  matched.textContent = term === "" ? " "
      : "Matched: " + (100 * sum / (W - 2 * XPAD)).toFixed(1) + "%";
}
function dump() {
  var top = Math.min.apply(null, frames.map(function (f) { return f.y; }));
  frames.forEach(function (f) {
    var cls = f.cls || "";
    if (cls === "hide") return;
    var x = f.cx === undefined ? f.x : f.cx, w = f.cw === undefined ? f.w : f.cw;
    var flags = [];
    if (cls === "anc") flags.push("anc");
    if (f.hit) flags.push("m");
    if (f.kind) flags.push(f.kind);
    log("frame\t" + f.name + "\t" + ((x - XPAD) / (W - 2 * XPAD)).toFixed(3) + "\t" +
        (w / (W - 2 * XPAD)).toFixed(3) + "\t" + flags.join(",") + "\t" +
        Math.round((f.y - top) / 16));
  });
  log("matched\t" + matched.textContent.trim());
  log("zoom\t" + (state.zoomed || ""));
}
function actions() {
  runActions(function (key, val) {
    if (key === "click") {
      var f = frames.find(function (f) { return f.name === val && f.cls !== "hide"; });
      if (f) f.rect.dispatchEvent(new MouseEvent("click", {bubbles: true}));
      else log("error\tno visible frame " + val);
    } else if (key === "search") search(val);
    else if (key === "reset") reset();
    else if (key === "dump") dump();
  });
}
)JS";

} // namespace cpcprof::flamegraph
