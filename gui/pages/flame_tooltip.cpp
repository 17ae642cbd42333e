// SPDX-License-Identifier: MIT
#include "gui/pages/flame_tooltip.h"

#include "profiler/analysis/derived.h"
#include "profiler/analysis/event_units.h"

#include <QLocale>

namespace cpcprof::gui {

namespace {

QString esc(const std::string &s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

// "54.55 % (6.0 ms)": the share first, then the value in its unit (ms
// for the clocks, a count with separators for the rest).
QString value_and_share(uint64_t v, uint64_t whole, bool ns) {
    QString value = ns ? QLocale().toString(double(v) / 1e6, 'f', 1) + QStringLiteral(" ms")
                       : QLocale().toString(qulonglong(v));
    if (whole == 0)
        return value;
    return QLocale().toString(100.0 * double(v) / double(whole), 'f', 2) + " % (" + value + ")";
}

// Derived ratios (CPI, misses per 1k instructions, miss rate) of a cost,
// as `cpcprof report` defines them (derived.h).  The one place the flame
// graph computes them.
QString derived_rows(const analysis::Query &q, const analysis::Cost &self,
                     const analysis::Cost &total) {
    QString rows;
    for (const analysis::DerivedColumn &d : analysis::derived_columns(q.events())) {
        auto text = [&](const analysis::Cost &c) {
            analysis::DerivedValue v = analysis::derive(d, c);
            if (!v.value)
                return QString("-");
            return d.kind == "miss_ratio" ? QString("%1 %").arg(*v.value * 100, 0, 'f', 2)
                                          : QString::number(*v.value, 'f', d.kind == "cpi" ? 3 : 2);
        };
        rows += "<tr><td>" + esc(d.name) + "</td><td align=right>" + text(self) +
                "</td><td align=right>" + text(total) + "</td></tr>";
    }
    return rows;
}

} // namespace

QString frame_tooltip(const ProfileData &profile, const analysis::CallTree &tree, uint32_t node) {
    const analysis::Query &q = *profile.query;
    const analysis::CallTree::Node &n = tree.nodes()[node];
    const analysis::FunctionInfo &f = q.functions()[n.function];
    QString t = "<b>" + esc(f.name) + "</b>";
    if (n.inlined)
        t += " <i>(inlined)</i>";
    t += "<br>" + (f.module.empty() ? QString("no module") : esc(f.module));
    if (!f.file.empty())
        t += "<br>" + esc(f.file);
    if (!f.has_symbols)
        t += "<br><i>no symbols: cpcprof symbolize names it once they are installed</i>";
    t += "<table><tr><th></th><th align=right>self</th><th align=right>total</th></tr>";
    const auto &events = q.events();
    const analysis::Cost &all = q.total();
    // Cells never wrap: a number broken over two lines reads as two.
    for (size_t e = 0; e < events.size(); ++e) {
        bool ns = analysis::is_time_event(events[e].name);
        t += "<tr><td>" + esc(events[e].name) + "</td><td align=right nowrap>" +
             value_and_share(n.self.values[e], all.values[e], ns) + "</td><td align=right nowrap>" +
             value_and_share(n.total.values[e], all.values[e], ns) + "</td></tr>";
    }
    t += "<tr><td>samples</td><td align=right nowrap>" +
         value_and_share(n.self.samples, all.samples, false) + "</td><td align=right nowrap>" +
         value_and_share(n.total.samples, all.samples, false) + "</td></tr>";
    t += derived_rows(q, n.self, n.total);
    t += "</table>";
    return t;
}

QString frame_summary(const ProfileData &profile, const analysis::CallTree &tree, uint32_t node,
                      int event) {
    const analysis::Query &q = *profile.query;
    const analysis::CallTree::Node &n = tree.nodes()[node];
    const analysis::FunctionInfo &f = q.functions()[n.function];
    QString t = QString::fromStdString(f.name);
    if (!f.module.empty())
        t += " (" + QString::fromStdString(f.module) + ")";
    if (event < 0 || size_t(event) >= q.events().size())
        return t;
    const std::string &name = q.events()[size_t(event)].name;
    bool ns = analysis::is_time_event(name);
    uint64_t all = q.total().values[size_t(event)];
    return t + QObject::tr(": total %1 of %2, self %3, %n sample(s)", "", int(n.total.samples))
                   .arg(value_and_share(n.total.values[size_t(event)], all, ns),
                        QString::fromStdString(name),
                        value_and_share(n.self.values[size_t(event)], all, ns));
}

} // namespace cpcprof::gui
