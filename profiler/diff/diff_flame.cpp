// SPDX-License-Identifier: MIT
#include "profiler/diff/diff_flame.h"

#include "profiler/analysis/table_format.h" // basename_of, percent

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace cpcprof::diff {

using analysis::CallTree;
using analysis::Query;

void append_html_escaped(std::string *out, const std::string &s) {
    for (char ch : s) {
        switch (ch) {
        case '&':
            *out += "&amp;";
            break;
        case '<':
            *out += "&lt;";
            break;
        case '>':
            *out += "&gt;";
            break;
        case '"':
            *out += "&quot;";
            break;
        case '\'':
            *out += "&#39;";
            break;
        default:
            // Control characters have no place in a name; keep the page valid.
            if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n')
                *out += "&#xFFFD;";
            else
                *out += ch;
        }
    }
}

namespace {

constexpr double kWidth = 1200; // px
constexpr int kFrameHeight = 16;
constexpr int kTop = 4;
constexpr double kMinFramePx = 0.3; // narrower frames (and their callees) are left out
constexpr double kCharPx = 7;       // 12 px monospace, about

using Key = std::pair<std::string, std::string>; // (name, module basename)

// A call tree whose nodes are merged by Key, with the weighing event's
// values only.
struct KeyedNode {
    std::string name, module;
    uint64_t self = 0, total = 0;
    std::map<Key, uint32_t> children; // by key: sorted, so pictures are reproducible
};

struct KeyedTree {
    std::vector<KeyedNode> nodes; // [0]: "all"

    uint32_t child(uint32_t parent, const Key &key) {
        auto it = nodes[parent].children.find(key);
        if (it != nodes[parent].children.end())
            return it->second;
        auto id = uint32_t(nodes.size());
        nodes[parent].children.emplace(key, id);
        nodes.push_back({key.first, key.second, 0, 0, {}});
        return id;
    }
};

KeyedTree keyed_tree(const Query &q, int event) {
    // Cut stacks under "[truncated]" in both profiles, as in the flame graph.
    CallTree tree = CallTree::top_down(q, q.reader().run().call_graph != "none");
    const auto &nodes = tree.nodes();
    KeyedTree k;
    k.nodes.push_back({"all", "", 0, nodes[0].total.values[size_t(event)], {}});
    // A node's parent is created before it, so one pass in index order maps parents first.
    std::vector<uint32_t> map(nodes.size(), 0);
    for (size_t i = 1; i < nodes.size(); ++i) {
        const auto &n = nodes[i];
        const analysis::FunctionInfo &fn = q.functions()[n.function];
        uint32_t id = k.child(map[n.parent], {fn.name, analysis::basename_of(fn.module)});
        map[i] = id;
        k.nodes[id].self += n.self.values[size_t(event)];
        k.nodes[id].total += n.total.values[size_t(event)];
    }
    return k;
}

struct Frame {
    uint32_t node = 0;
    std::optional<uint32_t> base; // the same call path in BASE
    double x = 0, w = 0;          // fractions of NEW's total
    int depth = 0;
    double points = 0; // change of the self share, percentage points (what the gate judges)
};

class Renderer {
  public:
    Renderer(const FlameInput &in)
        : in_(in), now_(keyed_tree(in.now, in.new_event)),
          base_(keyed_tree(in.base, in.base_event)) {}

    std::string page();

  private:
    double share(const KeyedTree &t, std::optional<uint32_t> n, bool self) const {
        uint64_t all = t.nodes[0].total;
        if (!n || all == 0)
            return 0;
        return double(self ? t.nodes[*n].self : t.nodes[*n].total) / double(all);
    }
    void layout(uint32_t node, std::optional<uint32_t> base, double x, int depth);
    std::string colour(double points) const;
    std::string frame_svg(const Frame &f, int height) const;

    const FlameInput &in_;
    KeyedTree now_, base_;
    std::vector<Frame> frames_;
    int max_depth_ = 0;
    double max_points_ = 0;
};

void Renderer::layout(uint32_t node, std::optional<uint32_t> base, double x, int depth) {
    // Depth-first with a stack of its own: a call path can be as deep as
    // the deepest stack in the file.
    struct Todo {
        uint32_t node;
        std::optional<uint32_t> base;
        double x;
        int depth;
    };
    const double all = double(now_.nodes[0].total);
    std::vector<Todo> todo{{node, base, x, depth}};
    std::vector<Todo> kids;
    while (!todo.empty()) {
        Todo t = todo.back();
        todo.pop_back();
        double w = double(now_.nodes[t.node].total) / all;
        if (w * kWidth < kMinFramePx)
            continue;
        Frame f{t.node, t.base, t.x, w, t.depth, 0};
        f.points = (share(now_, t.node, true) - share(base_, t.base, true)) * 100.0;
        frames_.push_back(f);
        max_depth_ = std::max(max_depth_, t.depth);
        max_points_ = std::max(max_points_, std::fabs(f.points));
        kids.clear();
        double cx = t.x;
        for (const auto &[key, child] : now_.nodes[t.node].children) {
            std::optional<uint32_t> b;
            if (t.base) {
                auto it = base_.nodes[*t.base].children.find(key);
                if (it != base_.nodes[*t.base].children.end())
                    b = it->second;
            }
            kids.push_back({child, b, cx, t.depth + 1});
            cx += double(now_.nodes[child].total) / all;
        }
        // Reversed, so that children come out in key order as before.
        todo.insert(todo.end(), kids.rbegin(), kids.rend());
    }
}

std::string Renderer::colour(double points) const {
    // Saturates at the largest change in the picture, but no less than 1
    // point: a picture of noise stays pale.
    double t = std::min(1.0, std::fabs(points) / std::max(max_points_, 1.0));
    int fade = int(std::lround(215 - 175 * t)), full = int(std::lround(225 + 30 * t));
    char buf[40];
    if (points > 0)
        std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", full, fade, fade);
    else if (points < 0)
        std::snprintf(buf, sizeof buf, "rgb(%d,%d,%d)", fade, fade, full);
    else
        std::snprintf(buf, sizeof buf, "rgb(220,220,220)");
    return buf;
}

std::string signed_points(double p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f pp", std::fabs(p) < 0.005 ? 0.0 : p);
    return buf;
}

std::string Renderer::frame_svg(const Frame &f, int height) const {
    const KeyedNode &n = now_.nodes[f.node];
    std::string label = n.module.empty() ? n.name : n.name + " (" + n.module + ")";
    std::string tip = label + "\nNEW: total " + analysis::percent(share(now_, f.node, false)) +
                      ", self " + analysis::percent(share(now_, f.node, true));
    if (f.base)
        tip += "\nBASE: total " + analysis::percent(share(base_, f.base, false)) + ", self " +
               analysis::percent(share(base_, f.base, true));
    else
        tip += "\nBASE: not on this call path (0%)";
    tip += "\nchange: self " + signed_points(f.points) + ", total " +
           signed_points((share(now_, f.node, false) - share(base_, f.base, false)) * 100.0);

    double px = f.x * kWidth, pw = f.w * kWidth;
    int y = height - (f.depth + 1) * kFrameHeight;
    size_t chars = pw > 6 ? size_t((pw - 6) / kCharPx) : 0;
    std::string text = chars < 3                ? ""
                       : n.name.size() <= chars ? n.name
                                                : n.name.substr(0, chars - 2) + "..";
    char geom[200];
    std::string out = "<g class=\"f\" data-x=\"";
    std::snprintf(geom, sizeof geom, "%.9g\" data-w=\"%.9g\" data-d=\"%d\" data-n=\"", f.x, f.w,
                  f.depth);
    out += geom;
    append_html_escaped(&out, n.name);
    out += "\"><title>";
    append_html_escaped(&out, tip);
    std::snprintf(geom, sizeof geom,
                  "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"", px, y,
                  pw, kFrameHeight - 1);
    out += geom + colour(f.points) + "\"/>";
    std::snprintf(geom, sizeof geom, "<text x=\"%.2f\" y=\"%d\">", px + 3, y + 11);
    out += geom;
    append_html_escaped(&out, text);
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
    if (now_.nodes[0].total > 0)
        layout(0, std::optional<uint32_t>(0), 0, 0);
    int height = kTop + (max_depth_ + 1) * kFrameHeight;

    std::string out = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>";
    append_html_escaped(&out, "cpcprof diff: " + in_.base_file + " -> " + in_.new_file);
    out += "</title>\n<style>\n"
           "body { font-family: sans-serif; margin: 12px; }\n"
           "#flame text { font: 12px monospace; pointer-events: none; }\n"
           "#flame g.f { cursor: pointer; }\n"
           "#flame rect { stroke: white; stroke-width: 0.5; }\n"
           ".grew { background: rgb(255,40,40); } .shrank { background: rgb(40,40,255); }\n"
           ".key { display: inline-block; width: 1em; height: 1em; vertical-align: middle; }\n"
           "</style></head><body>\n<h1>Differential flame graph</h1>\n<p>";
    append_html_escaped(&out, "Event " + in_.event_name + ". Frames: " + in_.new_file +
                                  " (NEW); colour: change of each call path's self share (the "
                                  "samples taken in the frame itself, what cpcprof diff's "
                                  "gate judges) against " +
                                  in_.base_file + " (BASE).");
    out += "<br><span class=\"key grew\"></span> grew &nbsp; <span class=\"key shrank\"></span> "
           "shrank (full colour = the largest change in the picture, at least 1 point); "
           "hover a frame for its self and total shares in both, click to zoom. Functions that "
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
