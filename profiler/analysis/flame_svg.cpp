// SPDX-License-Identifier: MIT
// The SVG flame graph (flame_render.h).
#include "profiler/analysis/flame_render.h"
#include "profiler/analysis/flame_text.h"

namespace cpcprof::flamegraph {

namespace {

constexpr double kWidth = 1200, kXPad = 10, kFrameHeight = 16, kFontSize = 12;
constexpr double kFontWidth = 0.59; // average character width / font size (Verdana)
constexpr double kTop = kFontSize * 4, kBottom = kFontSize * 2 + 10;
const std::string kAll = "all";

void append_share(std::string &out, uint64_t part, uint64_t whole) {
    out += " (";
    append_fixed(out, whole == 0 ? 0.0 : 100.0 * double(part) / double(whole), 2);
    out += "%)";
}

void attr(std::string &out, const char *name, double v, int decimals = 1) {
    out += ' ';
    out += name;
    out += "=\"";
    append_fixed(out, v, decimals);
    out += '"';
}

} // namespace

std::string frame_tooltip(const analysis::Query &q, const analysis::FlameModel &m,
                          const analysis::Frame &f) {
    const auto &nodes = m.tree.nodes();
    const analysis::CallTree::Node &n = nodes[f.node];
    const analysis::Cost &all = nodes[0].total;
    std::string t;
    if (f.kind == analysis::FrameKind::Root) {
        t = "all";
    } else {
        const analysis::FunctionInfo &fn = q.functions()[n.function];
        t = fn.name;
        if (f.kind == analysis::FrameKind::Inlined)
            t += "\n(inlined into its caller)";
        if (!fn.module.empty())
            t += "\nmodule: " + fn.module;
        if (!fn.file.empty())
            t += "\nfile: " + fn.file;
    }
    t += "\nsamples: ";
    append_grouped(t, n.total.samples);
    append_share(t, n.total.samples, all.samples);
    if (f.kind != analysis::FrameKind::Root) {
        t += ", self ";
        append_grouped(t, n.self.samples);
    }
    for (size_t e = 0; e < q.events().size(); ++e) {
        t += '\n';
        t += q.events()[e].name;
        t += ": ";
        append_grouped(t, n.total.values[e]);
        append_share(t, n.total.values[e], all.values[e]);
    }
    return t;
}

std::string render_svg(const analysis::Query &q, const analysis::FlameModel &m,
                       const RenderOptions &o) {
    const auto &nodes = m.tree.nodes();
    const int w = o.event;
    const double root = double(analysis::weight_of(nodes[0].total, w));
    const double span = kWidth - 2 * kXPad;
    const double height = double(m.max_depth + 1) * kFrameHeight + kTop + kBottom;

    std::string out;
    out.reserve(4096 + m.frames.size() * 400);
    out += "<?xml version=\"1.0\" standalone=\"no\"?>\n"
           "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\"";
    attr(out, "height", height);
    out += " viewBox=\"0 0 1200 ";
    append_fixed(out, height, 1);
    out += "\" onload=\"init(evt)\"";
    out += o.inverted ? " data-inverted=\"1\">\n" : ">\n";
    out += "<style type=\"text/css\">\n"
           "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
           "#title { text-anchor: middle; font-size: 17px; }\n"
           "#subtitle { text-anchor: middle; fill: rgb(80,80,80); }\n"
           "#frames > g:hover > rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
           "#frames > g.anc { opacity: 0.5; }\n"
           "#frames > g.hide { display: none; }\n"
           "#unzoom, #search { cursor: pointer; }\n"
           "#unzoom.hide { display: none; }\n"
           "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n";
    out += kActionsScript;
    out += kSvgScript;
    out += "]]></script>\n";
    out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"rgb(248,248,238)\"/>\n";
    out += "<text id=\"title\" x=\"600\" y=\"24\">";
    append_xml(out, o.title);
    out += "</text>\n<text id=\"subtitle\" x=\"600\" y=\"";
    append_fixed(out, kTop - 8, 0);
    out += "\">";
    append_xml(out, o.subtitle);
    out += "</text>\n<text id=\"unzoom\" class=\"hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n"
           "<text id=\"search\" x=\"1090\" y=\"24\">Search</text>\n"
           "<text id=\"matched\" x=\"1090\" y=\"";
    append_fixed(out, height - 15, 1);
    out += "\"> </text>\n<text id=\"details\" x=\"10\" y=\"";
    append_fixed(out, height - 15, 1);
    out += "\">";
    if (root == 0) {
        out += "No ";
        append_xml(out, q.events()[size_t(w)].name);
        out += " in the kept samples";
    } else if (m.pruned > 0) {
        append_grouped(out, m.pruned);
        out += m.pruned == 1 ? " frame" : " frames";
        out += " narrower than 0.1% not drawn";
    }
    out += "</text>\n<text id=\"test-state\" display=\"none\"></text>\n<g id=\"frames\">\n";

    for (const analysis::Frame &f : m.frames) {
        uint64_t weight = analysis::weight_of(nodes[f.node].total, w);
        if (weight == 0 || root == 0)
            continue;
        const std::string &name =
            f.kind == analysis::FrameKind::Root ? kAll : q.functions()[nodes[f.node].function].name;
        double fx = kXPad + span * double(f.x) / root;
        double fw = span * double(weight) / root;
        double fy = o.inverted ? kTop + f.depth * kFrameHeight
                               : height - kBottom - double(f.depth + 1) * kFrameHeight;
        out += "<g";
        if (f.kind == analysis::FrameKind::Inlined)
            out += " class=\"inl\"";
        else if (f.kind == analysis::FrameKind::NoSymbol)
            out += " class=\"nosym\"";
        out += "><title>";
        append_xml(out, frame_tooltip(q, m, f));
        out += "</title><rect";
        attr(out, "x", fx, 3); // the script finds a frame's callees by geometry
        attr(out, "y", fy);
        out += " width=\"";
        append_fixed(out, fw, 3);
        out += "\" height=\"15.0\" fill=\"";
        out += frame_colour(name, f.kind);
        out += "\" rx=\"2\" ry=\"2\"/><text";
        attr(out, "x", fx + 3);
        attr(out, "y", fy + 10.5);
        out += '>';
        double chars = (fw - 6) / (kFontSize * kFontWidth);
        append_xml(out, fit_label(name, chars > 0 ? size_t(chars) : 0));
        out += "</text></g>\n";
    }
    out += "</g>\n</svg>\n";
    return out;
}

} // namespace cpcprof::flamegraph
