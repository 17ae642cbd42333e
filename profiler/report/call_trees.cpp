#include "call_trees.h"

#include "table_format.h"

#include <algorithm>
#include <tuple>

namespace cpcprof::report {

using storage::CallTree;

namespace {

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

    void text(uint32_t node, unsigned depth, Table &t) const {
        const CallTree::Node &n = tree.nodes()[node];
        size_t e = size_t(c.weigh);
        const std::string &m = c.q.functions()[n.function].module;
        t.rows.push_back({percent(share(n.total.values[e], c.q.total().values[e])),
                          std::to_string(n.total.samples), std::string(2 * depth, ' ') + name(n),
                          m.empty() ? "?" : basename_of(m)});
        for (uint32_t k : ordered_children(node))
            text(k, depth + 1, t);
    }

    std::string json(uint32_t node, unsigned indent) const {
        const CallTree::Node &n = tree.nodes()[node];
        const auto &fn = c.q.functions()[n.function];
        std::string pad(indent, ' ');
        std::string out = pad + "{\"function\": " + json_string(fn.name) +
                          ", \"module\": " + json_string(fn.module) +
                          ", \"inlined\": " + (n.inlined ? "true" : "false") +
                          ", \"self\": " + json_cost(c.q, n.self) +
                          ", \"total\": " + json_cost(c.q, n.total) + ", \"children\": [";
        std::vector<uint32_t> kids = ordered_children(node);
        for (size_t i = 0; i < kids.size(); ++i)
            out += (i ? ",\n" : "\n") + json(kids[i], indent + 2);
        out += kids.empty() ? "]}" : "\n" + pad + "]}";
        return out;
    }

    void csv(uint32_t node, std::string &out) const {
        const CallTree::Node &n = tree.nodes()[node];
        const auto &fn = c.q.functions()[n.function];
        std::vector<std::string> f = {std::to_string(n.depth), fn.name, fn.module,
                                      n.inlined ? "1" : "0", std::to_string(n.self.samples),
                                      std::to_string(n.total.samples)};
        for (size_t e = 0; e < n.total.values.size(); ++e) {
            f.push_back(std::to_string(n.self.values[e]));
            f.push_back(std::to_string(n.total.values[e]));
            auto s = share(n.total.values[e], c.q.total().values[e]);
            f.push_back(s ? fixed(*s * 100, 4) : "");
        }
        out += csv_line(f);
        for (uint32_t k : ordered_children(node))
            csv(k, out);
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
        out = "{\n" + json_preamble(c) + "  \"tree\": " + json_string(what) +
              ",\n  \"function\": " + json_string(query) + ",\n  \"roots\": [";
        bool first = true;
        for (const CallTree &t : trees)
            for (uint32_t root : t.nodes()[0].children) {
                out += (first ? "\n" : ",\n") + Walk{c, t}.json(root, 4);
                first = false;
            }
        return out + (first ? "]\n}\n" : "\n  ]\n}\n");
    }
    if (c.options.format == Format::csv) {
        std::vector<std::string> head = {"depth", "function", "module", "inlined",
                                         "self_samples", "total_samples"};
        for (const auto &e : c.q.events())
            for (const char *p : {"self_", "total_", "total_pct_"})
                head.push_back(p + e.name);
        out = csv_line(head);
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
        Table t;
        t.headers = {"total:" + ev, "samples", "function", "module"};
        t.left = {false, false, true, true};
        for (uint32_t root : trees[i].nodes()[0].children)
            Walk{c, trees[i]}.text(root, 0, t);
        out += t.render();
    }
    return out;
}

} // namespace cpcprof::report
