// SPDX-License-Identifier: MIT
// The HTML flame graph (flame_render.h): the frames as JSON, drawn by an
// inline script.
#include "profiler/analysis/flame_render.h"
#include "profiler/analysis/flame_text.h"

#include <unordered_map>

namespace cpcprof::flamegraph {

namespace {

// Strings numbered in order of first use.
class StringTable {
  public:
    uint32_t id(const std::string &s) {
        auto [it, fresh] = ids_.try_emplace(s, uint32_t(list_.size()));
        if (fresh)
            list_.push_back(&it->first);
        return it->second;
    }
    void append_json(std::string &out) const {
        out += '[';
        for (size_t i = 0; i < list_.size(); ++i) {
            if (i > 0)
                out += ',';
            append_json_string(out, *list_[i]);
        }
        out += ']';
    }

  private:
    std::unordered_map<std::string, uint32_t> ids_;
    std::vector<const std::string *> list_;
};

void append_cost(std::string &out, const analysis::Cost &c) {
    out += ',';
    append_uint(out, c.samples);
    for (uint64_t v : c.values) {
        out += ',';
        append_uint(out, v);
    }
}

// {"funcs":[[name, module, file, nosym, colour]...], "modules":[...],
//  "files":[...], "stride":S, "nodes":[parent, func, inlined, total...,
//  self...]...} for the frames of m; func -1 is the "all" root.
void append_frames_json(std::string &out, const analysis::Query &q, const analysis::FlameModel &m) {
    const auto &nodes = m.tree.nodes();
    const auto &fns = q.functions();
    std::unordered_map<uint32_t, uint32_t> func_ids; // Query function -> funcs index
    StringTable modules, files;
    std::string funcs = "[", list;
    list.reserve(m.frames.size() * (8 + 2 * 8 * (1 + q.events().size())));
    for (size_t i = 0; i < m.frames.size(); ++i) {
        const analysis::Frame &f = m.frames[i];
        const analysis::CallTree::Node &n = nodes[f.node];
        if (i > 0)
            list += ',';
        list += '\n';
        if (f.parent < 0) {
            list += "-1,-1,0";
        } else {
            append_uint(list, uint64_t(f.parent));
            auto [it, fresh] = func_ids.try_emplace(n.function, uint32_t(func_ids.size()));
            if (fresh) {
                const analysis::FunctionInfo &fn = fns[n.function];
                funcs += func_ids.size() > 1 ? ",\n[" : "\n[";
                append_json_string(funcs, fn.name);
                funcs += ',';
                append_uint(funcs, modules.id(fn.module));
                funcs += ',';
                append_uint(funcs, files.id(fn.file));
                funcs += fn.has_symbols ? ",0,\"" : ",1,\"";
                funcs += frame_colour(fn.name, fn.has_symbols ? analysis::FrameKind::Code
                                                              : analysis::FrameKind::NoSymbol);
                funcs += "\"]";
            }
            list += ',';
            append_uint(list, it->second);
            list += f.kind == analysis::FrameKind::Inlined ? ",1" : ",0";
        }
        append_cost(list, n.total);
        append_cost(list, n.self);
    }
    funcs += ']';
    out += "\"funcs\":";
    out += funcs;
    out += ",\n\"modules\":";
    modules.append_json(out);
    out += ",\n\"files\":";
    files.append_json(out);
    out += ",\n\"stride\":";
    append_uint(out, 3 + 2 * (1 + q.events().size()));
    out += ",\n\"nodes\":[";
    out += list;
    out += "]";
}

} // namespace

std::string render_html(const analysis::Query &q, const analysis::FlameModel &m,
                        const RenderOptions &o) {
    std::string out;
    out.reserve(16384 + m.frames.size() * (40 + 20 * q.events().size()));
    out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
    append_xml(out, o.title);
    out += "</title>\n<style>\n";
    out += kHtmlStyle;
    out += "</style>\n</head>\n<body>\n<header>\n<h1>";
    append_xml(out, o.title);
    out += "</h1>\n<p id=\"subtitle\">";
    append_xml(out, o.subtitle);
    out += "</p>\n<div id=\"controls\">\n"
           "<label id=\"event-box\">Weight <select id=\"event\"></select></label>\n"
           "<input id=\"search\" type=\"search\" placeholder=\"Search functions\" "
           "autocomplete=\"off\" spellcheck=\"false\">\n"
           "<span id=\"matched\"></span>\n"
           "<button id=\"reset\" type=\"button\" disabled>Reset zoom</button>\n"
           "<span id=\"crumbs\"></span>\n</div>\n</header>\n"
           "<main id=\"chart\"></main>\n<div id=\"tip\" hidden></div>\n"
           "<p id=\"notes\"></p>\n"
           "<noscript>This flame graph is drawn by JavaScript; enable it to see the "
           "graph.</noscript>\n"
           "<pre id=\"test-state\" hidden></pre>\n"
           "<script type=\"application/json\" id=\"flame-data\">{\"title\":";
    append_json_string(out, o.title);
    out += ",\n\"inverted\":";
    out += o.inverted ? "true" : "false";
    out += ",\n\"event\":";
    append_uint(out, uint64_t(o.event));
    out += ",\n\"events\":[";
    for (size_t e = 0; e < q.events().size(); ++e) {
        if (e > 0)
            out += ',';
        append_json_string(out, q.events()[e].name);
    }
    out += "],\n\"minShare\":";
    append_fixed(out, kHtmlMinShare * 100, 2);
    out += ",\n\"pruned\":";
    append_uint(out, m.pruned);
    out += ",\n";
    append_frames_json(out, q, m);
    out += "}</script>\n<script>\n";
    out += kActionsScript;
    out += kHtmlScript;
    out += "</script>\n</body>\n</html>\n";
    return out;
}

} // namespace cpcprof::flamegraph
