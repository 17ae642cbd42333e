// SPDX-License-Identifier: MIT
// The style and script of the HTML flame graph (flame_render.h).  The
// data comes from the page's <script type="application/json"> element;
// nothing is fetched.
#include "profiler/analysis/flame_render.h"

namespace cpcprof::flamegraph {

const char kHtmlStyle[] =
    R"CSS(body { margin: 0; font: 13px/1.35 system-ui, sans-serif; background: #f8f8ee; color: #111; }
header { padding: 8px 12px 4px; }
h1 { font-size: 18px; margin: 0 0 2px; }
#subtitle { margin: 0 0 6px; color: #555; }
#controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
#search { width: 16em; }
#matched { color: #a000a0; font-weight: 600; min-width: 4em; }
#crumbs { color: #444; }
#chart { position: relative; margin: 6px 12px; overflow: hidden; }
.f { position: absolute; height: 15px; box-sizing: border-box; border-radius: 2px;
     box-shadow: inset -1px 0 rgba(255,255,255,0.7); padding: 0 3px; font-size: 12px;
     line-height: 15px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
     cursor: pointer; }
.f:hover { outline: 1px solid #000; outline-offset: -1px; }
.f.anc { opacity: 0.5; }
.f.m { background: rgb(230,0,230) !important; color: #fff; }
.f.inl { font-style: italic; }
#tip { position: fixed; z-index: 2; max-width: 60em; padding: 6px 8px; background: #fffff4;
       border: 1px solid #888; box-shadow: 2px 2px 6px rgba(0,0,0,0.25); white-space: pre-wrap;
       pointer-events: none; overflow-wrap: anywhere; }
#tip b { font-weight: 600; }
#notes { margin: 4px 12px; color: #555; }
)CSS";

const char kHtmlScript[] = R"JS((function () {
"use strict";
var state = document.getElementById("test-state");
function log(line) { state.textContent += line + "\n"; }
window.addEventListener("error", function (e) { log("error\t" + e.message); });

var D = JSON.parse(document.getElementById("flame-data").textContent);
var S = D.stride, N = D.nodes.length / S, NW = 1 + D.events.length, H = 16;
var chart = document.getElementById("chart"), tip = document.getElementById("tip");
var search = document.getElementById("search"), matched = document.getElementById("matched");
var resetBtn = document.getElementById("reset"), crumbs = document.getElementById("crumbs");
var select = document.getElementById("event");
var nodes = D.nodes, funcs = D.funcs;
// Weight w: 0 = samples, 1 + e = event e.
var weight = 1 + D.event, zoomed = 0, term = "";
var depth = new Int32Array(N), end = new Int32Array(N), x = new Float64Array(N);
var maxDepth = 0;

function parent(i) { return nodes[i * S]; }
function fn(i) { return nodes[i * S + 1]; }
function inlined(i) { return nodes[i * S + 2] === 1; }
function total(i, w) { return nodes[i * S + 3 + w]; }
function self(i, w) { return nodes[i * S + 3 + NW + w]; }
function name(i) { return i === 0 ? "all" : funcs[fn(i)][0]; }

// Nodes come in pre-order: a subtree is the range [i, end[i]).
for (var i = 0; i < N; i++) {
  end[i] = i + 1;
  if (i > 0) { depth[i] = depth[parent(i)] + 1; if (depth[i] > maxDepth) maxDepth = depth[i]; }
}
for (var i = N - 1; i > 0; i--) if (end[i] > end[parent(i)]) end[parent(i)] = end[i];

function layout() {
  var next = new Float64Array(N);
  for (var i = 1; i < N; i++) {
    var p = parent(i);
    x[i] = next[p]; next[p] += total(i, weight); next[i] = x[i];
  }
}
function isAncestor(a, i) { return a < i && end[a] >= end[i]; }
function isMatch(i) { return term !== "" && name(i).toLowerCase().indexOf(term) >= 0; }
function pct(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + "%" : "-"; }
function num(v) { return v.toLocaleString("en-US"); }

function render() {
  chart.textContent = "";
  tip.hidden = true; // its frame may be gone; the next mouse move shows it again
  var path = [];
  for (var p = zoomed; p > 0; p = parent(p)) path.unshift(name(p));
  crumbs.textContent = zoomed === 0 ? "" : "Zoomed: " + path.join(" \u203a ");
  resetBtn.disabled = zoomed === 0;
  chart.style.height = ((maxDepth + 1) * H) + "px";
  // Frames are placed in percent of the chart, so that they fit it however
  // its width changes after this (a page grown taller than the window gets
  // a scrollbar, which narrows the chart); pixels, measured after the
  // height and crumbs are set, only decide what is too narrow to draw or label.
  var cw = chart.getBoundingClientRect().width, zw = total(zoomed, weight);
  if (N === 0 || zw === 0) {
    chart.textContent = "No samples of " + weightName(weight) + " in this selection.";
    chart.style.height = "auto";
    return;
  }
  var frag = document.createDocumentFragment(), zx = x[zoomed], scale = cw / zw;
  function add(i, left, width, anc) {
    var d = document.createElement("div");
    var cls = "f";
    if (anc) cls += " anc";
    if (isMatch(i)) cls += " m";
    if (inlined(i)) cls += " inl";
    else if (i > 0 && funcs[fn(i)][3] === 1) cls += " nosym";
    d.className = cls;
    d.dataset.i = i;
    d.style.left = (100 * left / cw) + "%";
    d.style.width = (100 * width / cw) + "%";
    var row = D.inverted ? depth[i] : maxDepth - depth[i];
    d.style.top = (row * H) + "px";
    d.style.background = i === 0 ? "rgb(230,200,170)" : inlined(i) ? "rgb(110,210,210)"
                                                      : funcs[fn(i)][4];
    d.textContent = width >= 18 ? name(i) : "";
    if (width < 8) d.style.padding = "0"; // else the padding would widen it
    frag.appendChild(d);
  }
  for (var p = zoomed === 0 ? -1 : parent(zoomed); p >= 0; p = parent(p)) add(p, 0, cw, true);
  for (var i = zoomed; i < end[zoomed];) {
    var w = total(i, weight) * scale;
    if (w < 0.5) { i = end[i]; continue; }
    add(i, (x[i] - zx) * scale, w, false);
    i++;
  }
  chart.appendChild(frag);
}
function weightName(w) { return w === 0 ? "samples" : D.events[w - 1]; }

function updateMatched() {
  if (term === "") { matched.textContent = ""; return; }
  var sum = 0;
  for (var i = 1; i < N;) {
    if (isMatch(i)) { sum += total(i, weight); i = end[i]; } else i++;
  }
  var all = total(0, weight);
  matched.textContent = "Matched: " + pct(sum, all) + " (" + num(sum) + " of " + num(all) +
      (weight === 0 ? " samples)" : " " + weightName(weight) + ")");
}

function showTip(i, ev) {
  var lines = [], f = i > 0 ? funcs[fn(i)] : null;
  lines.push(name(i));
  if (i > 0 && inlined(i)) lines.push("(inlined into its caller)");
  if (f && D.modules[f[1]] !== "") lines.push("module: " + D.modules[f[1]]);
  if (f && D.files[f[2]] !== "") lines.push("file: " + D.files[f[2]]);
  for (var w = 0; w < NW; w++) {
    var line = weightName(w) + ": " + num(total(i, w)) + " (" + pct(total(i, w), total(0, w)) +
        " of all";
    if (zoomed > 0 && zoomed !== i && !isAncestor(i, zoomed))
      line += ", " + pct(total(i, w), total(zoomed, w)) + " of " + name(zoomed);
    line += ")";
    if (i > 0) line += ", self " + num(self(i, w));
    lines.push(line);
  }
  tip.textContent = "";
  var b = document.createElement("b");
  b.textContent = lines[0];
  tip.appendChild(b);
  tip.appendChild(document.createTextNode("\n" + lines.slice(1).join("\n")));
  tip.hidden = false;
  var tx = ev.clientX + 12, ty = ev.clientY + 14;
  if (tx + tip.offsetWidth > window.innerWidth) tx = Math.max(0, window.innerWidth - tip.offsetWidth - 4);
  if (ty + tip.offsetHeight > window.innerHeight) ty = Math.max(0, ev.clientY - tip.offsetHeight - 8);
  tip.style.left = tx + "px";
  tip.style.top = ty + "px";
}

function zoom(i) { zoomed = i; render(); }
function setWeight(w) {
  weight = w; select.value = String(w); layout();
  if (total(zoomed, weight) === 0) zoomed = 0;
  render(); updateMatched();
}
function setSearch(t) { search.value = t; term = t.trim().toLowerCase(); render(); updateMatched(); }

chart.addEventListener("click", function (e) {
  var d = e.target.closest(".f"); if (d) zoom(+d.dataset.i);
});
chart.addEventListener("mousemove", function (e) {
  var d = e.target.closest(".f"); if (d) showTip(+d.dataset.i, e); else tip.hidden = true;
});
chart.addEventListener("mouseleave", function () { tip.hidden = true; });
resetBtn.addEventListener("click", function () { zoom(0); });
search.addEventListener("input", function () { setSearch(search.value); });
select.addEventListener("change", function () { setWeight(+select.value); });
window.addEventListener("resize", function () { render(); });

for (var w = 0; w < NW; w++) {
  var o = document.createElement("option");
  o.value = String(w); o.textContent = weightName(w);
  select.appendChild(o);
}
if (D.events.length < 2) document.getElementById("event-box").hidden = true;
if (D.pruned > 0)
  document.getElementById("notes").textContent = num(D.pruned) + " call tree nodes under " +
      D.minShare + "% of every weight are not shown.";
setWeight(weight);

// Where each frame was drawn, in fractions of the chart's width as laid
// out now (not as render() meant it).
function dump() {
  var ds = chart.querySelectorAll(".f"), c = chart.getBoundingClientRect();
  for (var k = 0; k < ds.length; k++) {
    var d = ds[k], i = +d.dataset.i, flags = [], r = d.getBoundingClientRect();
    ["anc", "m", "inl", "nosym"].forEach(function (c) { if (d.classList.contains(c)) flags.push(c); });
    log("frame\t" + name(i) + "\t" + ((r.left - c.left) / c.width).toFixed(3) + "\t" +
        (r.width / c.width).toFixed(3) + "\t" + flags.join(",") + "\t" +
        Math.round(parseFloat(d.style.top) / H));
  }
  log("matched\t" + matched.textContent);
  log("tip\t" + (tip.hidden ? "" : tip.textContent.split("\n").join(" | ")));
  log("zoom\t" + (zoomed === 0 ? "" : name(zoomed)));
}
function actions() {
  runActions(function (key, val) {
    if (key === "click" || key === "tip") {
      var ds = chart.querySelectorAll(".f"), hit = null;
      for (var k = 0; k < ds.length && !hit; k++) if (name(+ds[k].dataset.i) === val) hit = ds[k];
      var r = hit ? hit.getBoundingClientRect() : null;
      if (hit) hit.dispatchEvent(new MouseEvent(key === "tip" ? "mousemove" : "click",
          {bubbles: true, clientX: r.left + 1, clientY: r.top + 1}));
      else log("error\tno visible frame " + val);
    } else if (key === "search") setSearch(val);
    else if (key === "reset") resetBtn.click();
    else if (key === "event") {
      var w = -1;
      for (var k = 0; k < NW; k++) if (weightName(k) === val) w = k;
      if (w < 0) log("error\tno weight " + val); else setWeight(w);
    } else if (key === "dump") dump();
  });
}
actions();
})();
)JS";

} // namespace cpcprof::flamegraph
