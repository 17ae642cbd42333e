// SPDX-License-Identifier: MIT
#include "profiler/report/call_trees.h"

#include "profiler/analysis/table_format.h"

#include <algorithm>
#include <tuple>

namespace cpcprof::report {

using analysis::CallTree;

namespace {

// Text and JSON trees indent 2 columns per level up to this many levels,
// so that output grows with the number of nodes, not with the square of
// the depth; text marks deeper nodes with their depth.
constexpr unsigned kMaxIndentLevels = 40;

std::string tree_indent(unsigned level, uint32_t depth) {
    if (level <= kMaxIndentLevels)
        return std::string(2 * level, ' ');
    return std::string(2 * kMaxIndentLevels, ' ') + "[" + std::to_string(depth) + "] ";
}

struct Walk {
    const ReportContext &c;
    const CallTree &tree;

    std::vector<uint32_t> ordered_children(uint32_t node) const {
        std::vector<uint32_t> kids = tree.nodes()[node].children;
        size_t e = size_t(c.weigh);
        const auto &fns = c.q.functions();
        auto key = [&](uint32_t n) {
            const CallTree::Node &x = tree.nodes()[n];
            return std::make_tuple(x.total.values[e], x.total.samples);
        };
        std::stable_sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
            if (key(a) != key(b))
                return key(a) > key(b);
            return fns[tree.nodes()[a].function].name < fns[tree.nodes()[b].function].name;
        });
        return kids;
    }

    std::string name(const CallTree::Node &n) const {
        return c.q.functions()[n.function].name + (n.inlined ? " [inlined]" : "");
    }

    // Depth-first from root, children in ordered_children's order, with
    // a stack of its own (a tree can be as deep as the deepest stack):
    // enter(node, level) before a node's children, leave(node, level,
    // had_children) after them; level 0 is root's.
    template <class Enter, class Leave> void walk(uint32_t root, Enter enter, Leave leave) const {
        struct Open {
            uint32_t node;
            std::vector<uint32_t> kids;
            size_t next = 0;
        };
        std::vector<Open> path;
        enter(root, 0u);
        path.push_back({root, ordered_children(root)});
        while (!path.empty()) {
            Open &top = path.back();
            if (top.next == top.kids.size()) {
                leave(top.node, unsigned(path.size() - 1), !top.kids.empty());
                path.pop_back();
                continue;
            }
            uint32_t k = top.kids[top.next++];
            enter(k, unsigned(path.size()));
            path.push_back({k, ordered_children(k)});
        }
    }

    void text(uint32_t root, analysis::Table &t) const {
        size_t e = size_t(c.weigh);
        walk(
            root,
            [&](uint32_t node, unsigned level) {
                const CallTree::Node &n = tree.nodes()[node];
                const std::string &m = c.q.functions()[n.function].module;
                t.rows.push_back(
                    {analysis::percent(analysis::share(n.total.values[e], c.q.total().values[e])),
                     std::to_string(n.total.samples), tree_indent(level, n.depth) + name(n),
                     m.empty() ? "?" : analysis::basename_of(m)});
            },
            [](uint32_t, unsigned, bool) {});
    }

    // Nested objects, appended to out; indentation stops growing at
    // kMaxIndentLevels (the nesting still says the depth).
    void json(uint32_t root, unsigned indent, std::string &out) const {
        auto pad = [&](unsigned level) {
            return std::string(indent + 2 * std::min(level, kMaxIndentLevels), ' ');
        };
        std::vector<bool> first_child{true}; // per open level: no child written yet
        walk(
            root,
            [&](uint32_t node, unsigned level) {
                if (level > 0) {
                    out += first_child[level - 1] ? "\n" : ",\n";
                    first_child[level - 1] = false;
                }
                if (first_child.size() <= level)
                    first_child.resize(level + 1);
                first_child[level] = true;
                const CallTree::Node &n = tree.nodes()[node];
                const auto &fn = c.q.functions()[n.function];
                out += pad(level) + "{\"function\": " + analysis::json_string(fn.name) +
                       ", \"module\": " + analysis::json_string(fn.module) +
                       ", \"inlined\": " + (n.inlined ? "true" : "false") +
                       ", \"self\": " + json_cost(c.q, n.self) +
                       ", \"total\": " + json_cost(c.q, n.total) + ", \"children\": [";
            },
            [&](uint32_t, unsigned level, bool had_children) {
                out += had_children ? "\n" + pad(level) + "]}" : "]}";
            });
    }

    void csv(uint32_t root, std::string &out) const {
        walk(
            root,
            [&](uint32_t node, unsigned) {
                const CallTree::Node &n = tree.nodes()[node];
                const auto &fn = c.q.functions()[n.function];
                std::vector<std::string> f = {std::to_string(n.depth),
                                              fn.name,
                                              fn.module,
                                              n.inlined ? "1" : "0",
                                              std::to_string(n.self.samples),
                                              std::to_string(n.total.samples)};
                for (size_t e = 0; e < n.total.values.size(); ++e) {
                    f.push_back(std::to_string(n.self.values[e]));
                    f.push_back(std::to_string(n.total.values[e]));
                    auto s = analysis::share(n.total.values[e], c.q.total().values[e]);
                    f.push_back(s ? analysis::fixed(*s * 100, 4) : "");
                }
                out += analysis::csv_line(f);
            },
            [](uint32_t, unsigned, bool) {});
    }
};

} // namespace

std::string render_trees(const ReportContext &c, TreeKind kind, const std::string &query,
                         const std::vector<uint32_t> &functions) {
    const char *what = kind == TreeKind::callers ? "callers" : "callees";
    std::vector<CallTree> trees;
    for (uint32_t fn : functions)
        trees.push_back(kind == TreeKind::callers ? CallTree::callers(c.q, fn)
                                                  : CallTree::callees(c.q, fn));
    std::string out;
    if (c.options.format == Format::json) {
        out = "{\n" + json_preamble(c) + "  \"tree\": " + analysis::json_string(what) +
              ",\n  \"function\": " + analysis::json_string(query) + ",\n  \"roots\": [";
        bool first = true;
        for (const CallTree &t : trees)
            for (uint32_t root : t.nodes()[0].children) {
                out += first ? "\n" : ",\n";
                Walk{c, t}.json(root, 4, out);
                first = false;
            }
        return out + (first ? "]\n}\n" : "\n  ]\n}\n");
    }
    if (c.options.format == Format::csv) {
        std::vector<std::string> head = {"depth",   "function",     "module",
                                         "inlined", "self_samples", "total_samples"};
        for (const auto &e : c.q.events())
            for (const char *p : {"self_", "total_", "total_pct_"})
                head.push_back(p + e.name);
        out = analysis::csv_line(head);
        for (const CallTree &t : trees)
            for (uint32_t root : t.nodes()[0].children)
                Walk{c, t}.csv(root, out);
        return out;
    }
    out = text_header(c);
    const std::string &ev = c.q.events()[size_t(c.weigh)].name;
    for (size_t i = 0; i < trees.size(); ++i) {
        out += "\n" + std::string(what) + " of " + c.q.functions()[functions[i]].name +
               " (total:" + ev + " = share of all kept samples' " + ev + ")\n";
        analysis::Table t;
        t.headers = {"total:" + ev, "samples", "function", "module"};
        t.left = {false, false, true, true};
        for (uint32_t root : trees[i].nodes()[0].children)
            Walk{c, trees[i]}.text(root, t);
        out += t.render();
    }
    return out;
}

} // namespace cpcprof::report
