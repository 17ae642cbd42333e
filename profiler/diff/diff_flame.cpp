// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_flame.h"

#include "profiler/analysis/diff_model.h" // change_colour
#include "profiler/analysis/flame_layout.h"
#include "profiler/analysis/path_match.h"
#include "profiler/analysis/table_format.h" // percent
#include "profiler/analysis/utf8_text.h"    // append_xml

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace cpcprof::diff {

using analysis::CallTree;
using analysis::Query;

namespace {

constexpr double kWidth = 1200; // px
constexpr int kFrameHeight = 16;
constexpr int kTop = 4;
constexpr double kMinFramePx = 0.3; // narrower frames (and their callees) are left out
constexpr double kCharPx = 7;       // 12 px monospace, about

// NEW's top-down tree merged by call path (function name, module
// basename) and matched in BASE's, with the weighing event's values only.
struct Paths final : analysis::FlameTree {
    analysis::PathKeys keys;
    analysis::PathMatch match;
    std::vector<std::vector<uint32_t>> by_key; // per path, by key: pictures are reproducible

    uint32_t parent(uint32_t path) const override { return match.parent[path]; }
    const std::vector<uint32_t> &children(uint32_t path) const override { return by_key[path]; }
    size_t nodes() const override { return match.paths(); }
    size_t weights() const override { return 1; }
    uint64_t weight(uint32_t path, size_t) const override { return match.now_total[path]; }
    std::string_view name(uint32_t path) const override {
        return path == 0 ? "all" : keys.name(match.key[path]);
    }
};

void match_trees(const FlameInput &in, Paths &p) {
    // Cut stacks under "[truncated]" in both profiles, as in the flame graph.
    auto tree = [](const Query &q) {
        return CallTree::top_down(q, q.reader().run().call_graph != "none");
    };
    std::vector<uint32_t> now_keys = p.keys.of(in.now), base_keys = p.keys.of(in.base);
    p.match = analysis::match_paths(tree(in.now), now_keys, {in.new_event}, tree(in.base),
                                    base_keys, {in.base_event});
    p.by_key = analysis::children_by_key(p.match, p.keys);
}

struct Frame {
    uint32_t path = 0;   // of NEW, and the same call path in BASE if in_base
    double x = 0, w = 0; // fractions of NEW's total
    int depth = 0;
    double points = 0;        // change of the self share, percentage points (what the gate judges)
    analysis::ShareTest test; // of that change, given the runs' samples
};

class Renderer {
  public:
    Renderer(const FlameInput &in) : in_(in) { match_trees(in, paths_); }

    std::string page();

  private:
    // Call path p's share of NEW's or BASE's total; 0 where BASE lacks it.
    double share(bool base, uint32_t p, bool self) const {
        const analysis::PathMatch &m = paths_.match;
        uint64_t all = base ? m.base_total[0] : m.now_total[0];
        if ((base && !m.in_base[p]) || all == 0)
            return 0;
        uint64_t v = base ? (self ? m.base_self[p] : m.base_total[p])
                          : (self ? m.now_self[p] : m.now_total[p]);
        return double(v) / double(all);
    }
    void layout();
    // The change as coloured: its points where the test calls it more
    // than noise, 0 (grey) where not.
    static double signal(const Frame &f) { return f.test.significant ? f.points : 0; }
    std::string colour(double points) const;
    std::string frame_svg(const Frame &f, int height) const;

    const FlameInput &in_;
    Paths paths_;
    std::vector<Frame> frames_;
    int max_depth_ = 0;
    double max_points_ = 0;
};

void Renderer::layout() {
    const double all = double(paths_.match.now_total[0]);
    analysis::FlameLayout l = analysis::lay_out_flame(
        paths_,
        {.zoom = 0, .order = analysis::SiblingOrder::Given, .min_share = kMinFramePx / kWidth});
    const uint64_t base_samples = in_.base.observations(in_.base.total(), size_t(in_.base_event));
    const uint64_t new_samples = in_.now.observations(in_.now.total(), size_t(in_.new_event));
    for (const analysis::FlamePlace &p : l.places) {
        Frame f{p.node, double(p.x) / all, double(p.width) / all, int(p.depth), 0, {}};
        double before = share(true, p.node, true), after = share(false, p.node, true);
        f.points = (after - before) * 100.0;
        f.test =
            analysis::test_share_change(before, base_samples, after, new_samples, in_.confidence);
        frames_.push_back(f);
        max_points_ = std::max(max_points_, std::fabs(signal(f)));
    }
    max_depth_ = int(l.max_depth);
}

std::string Renderer::colour(double points) const {
    analysis::Rgb c = analysis::change_colour(points, max_points_);
    char buf[40];
    std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    return buf;
}

std::string signed_points(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f pp", std::fabs(p) < 0.005 ? 0.0 : p);
    return buf;
}

std::string Renderer::frame_svg(const Frame &f, int height) const {
    // Path 0, the root of every stack, has no key.
    uint32_t key = paths_.match.key[f.path];
    std::string name = f.path == 0 ? "all" : paths_.keys.name(key);
    std::string module = f.path == 0 ? "" : paths_.keys.module(key);
    std::string label = module.empty() ? name : name + " (" + module + ")";
    std::string tip = label + "\nNEW: total " + analysis::percent(share(false, f.path, false)) +
                      ", self " + analysis::percent(share(false, f.path, true));
    if (paths_.match.in_base[f.path])
        tip += "\nBASE: total " + analysis::percent(share(true, f.path, false)) + ", self " +
               analysis::percent(share(true, f.path, true));
    else
        tip += "\nBASE: not on this call path (0%)";
    tip += "\nchange: self " + signed_points(f.points);
    if (std::fabs(f.points) >= 0.005) {
        char interval[120];
        std::snprintf(interval, sizeof interval, " (%s; %g %% interval %+.2f to %+.2f)",
                      f.test.significant ? "beyond noise" : "within noise", in_.confidence * 100,
                      f.test.low * 100, f.test.high * 100);
        tip += interval;
    }
    tip += ", total " +
           signed_points((share(false, f.path, false) - share(true, f.path, false)) * 100.0);

    double px = f.x * kWidth, pw = f.w * kWidth;
    int y = height - (f.depth + 1) * kFrameHeight;
    size_t chars = pw > 6 ? size_t((pw - 6) / kCharPx) : 0;
    std::string text = chars < 3              ? ""
                       : name.size() <= chars ? name
                                              : name.substr(0, chars - 2) + "..";
    char geom[200];
    std::string out = "<g class=\"f\" data-x=\"";
    std::snprintf(geom, sizeof geom, "%.9g\" data-w=\"%.9g\" data-d=\"%d\" data-n=\"", f.x, f.w,
                  f.depth);
    out += geom;
    analysis::append_xml(out, name);
    out += "\"><title>";
    analysis::append_xml(out, tip);
    std::snprintf(geom, sizeof geom,
                  "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"", px, y,
                  pw, kFrameHeight - 1);
    out += geom + colour(signal(f)) + "\"/>";
    std::snprintf(geom, sizeof geom, "<text x=\"%.2f\" y=\"%d\">", px + 3, y + 11);
    out += geom;
    analysis::append_xml(out, text);
    return out + "</text></g>\n";
}

const char kScript[] = R"JS(
(function () {
  var W = 1200, frames = document.querySelectorAll('#flame g.f');
  function place(g, x, w) {
    var r = g.querySelector('rect'), t = g.querySelector('text'), n = g.getAttribute('data-n');
    if (w < 0.3) { g.style.display = 'none'; return; }
    g.style.display = '';
    r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));
    t.setAttribute('x', (x + 3).toFixed(2));
    var c = Math.floor((w - 6) / 7);
    t.textContent = c < 3 ? '' : (n.length <= c ? n : n.substring(0, c - 2) + '..');
  }
  function zoom(x0, w0, d0) {
    var e = 1e-9;
    frames.forEach(function (g) {
      var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w'), d = +g.getAttribute('data-d');
      if (d < d0 && x <= x0 + e && x + w >= x0 + w0 - e) place(g, 0, W);
      else if (d >= d0 && x >= x0 - e && x + w <= x0 + w0 + e) place(g, (x - x0) / w0 * W, w / w0 * W);
      else g.style.display = 'none';
    });
  }
  frames.forEach(function (g) {
    g.addEventListener('click', function () {
      zoom(+g.getAttribute('data-x'), +g.getAttribute('data-w'), +g.getAttribute('data-d'));
    });
  });
  document.getElementById('reset').addEventListener('click', function () { zoom(0, 1, 0); });
})();
)JS";

std::string Renderer::page() {
    if (paths_.match.now_total[0] > 0)
        layout();
    int height = kTop + (max_depth_ + 1) * kFrameHeight;

    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>";
    analysis::append_xml(out, "cpcprof diff: " + in_.base_file + " -> " + in_.new_file);
    out += "</title>\n<style>\n"
           "body { font-family: sans-serif; margin: 12px; }\n"
           "#flame text { font: 12px monospace; pointer-events: none; }\n"
           "#flame g.f { cursor: pointer; }\n"
           "#flame rect { stroke: white; stroke-width: 0.5; }\n"
           ".grew { background: rgb(255,40,40); } .shrank { background: rgb(40,40,255); }\n"
           ".key { display: inline-block; width: 1em; height: 1em; vertical-align: middle; }\n"
           "</style></head><body>\n<h1>Differential flame graph</h1>\n<p>";
    analysis::append_xml(out, "Event " + in_.event_name + ". Frames: " + in_.new_file +
                                  " (NEW); colour: change of each call path's self share (the "
                                  "samples taken in the frame itself, what cpcprof diff's "
                                  "gate judges) against " +
                                  in_.base_file + " (BASE).");
    char legend[400];
    std::snprintf(legend, sizeof legend,
                  "<br><span class=\"key grew\"></span> grew &nbsp; <span class=\"key "
                  "shrank\"></span> shrank (full colour = the largest change in the picture, at "
                  "least 1 point); grey: unchanged, or a change within noise (two-proportion "
                  "z-test of the two runs' samples, %g %% confidence); ",
                  in_.confidence * 100);
    out += legend;
    out += "hover a frame for its self and total shares in both, click to zoom. Functions that "
           "only BASE has are "
           "not drawn: see <code>cpcprof diff</code>'s table. "
           "<button id=\"reset\">Reset zoom</button></p>\n";
    char svg[160];
    std::snprintf(svg, sizeof svg, "<svg id=\"flame\" width=\"%d\" height=\"%d\">\n", int(kWidth),
                  height);
    out += svg;
    for (const Frame &f : frames_)
        out += frame_svg(f, height);
    out += "</svg>\n<script>";
    out += kScript;
    out += "</script>\n</body></html>\n";
    return out;
}

} // namespace

std::string diff_flame_html(const FlameInput &in) {
    Renderer r(in);
    return r.page();
}

} // namespace cpcprof::diff
