// SPDX-License-Identifier: MIT
#include "gui/pages/flame_diff.h"

#include "profiler/analysis/diff_model.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace cpcprof::gui {

std::optional<double> frame_change(const DiffData &d, DiffData::Tree t, uint32_t node, int event) {
    if (event < 0 || size_t(event) >= d.common.size() || d.common[size_t(event)] < 0)
        return std::nullopt;
    DeltaInput in = d.node_delta(t, node);
    if (!in.now.self)
        return std::nullopt;
    return d.points(in, size_t(d.common[size_t(event)]), true);
}

std::optional<double> frame_signal(const DiffData &d, DiffData::Tree t, uint32_t node, int event) {
    std::optional<double> p = frame_change(d, t, node, event);
    if (!p)
        return p;
    auto test = d.test(d.node_delta(t, node), size_t(d.common[size_t(event)]), true);
    return test && test->significant ? *p : 0.0;
}

double largest_change(const DiffData &d, DiffData::Tree t, const FlameLayout &layout, int event) {
    double largest = 0;
    for (const FlameFrame &f : layout.frames)
        if (auto p = frame_signal(d, t, f.node, event))
            largest = std::max(largest, std::fabs(*p));
    return largest;
}

QColor change_colour(std::optional<double> points, double largest) {
    analysis::Rgb c = analysis::change_colour(points.value_or(0), largest);
    return {c.r, c.g, c.b};
}

namespace {

QString figure(const DiffData &d, const SideValues &v, bool base_side, size_t e, bool self) {
    const uint64_t *values = self ? v.self : v.total;
    if (!values)
        return QObject::tr("-");
    QString s = QLocale().toString(qulonglong(values[e]));
    if (auto share = d.share(v, base_side, e, self))
        s += QStringLiteral(" (%1 %)").arg(*share * 100, 0, 'f', 2);
    return s;
}

// "+1.23 pp" when beyond noise, "<i>+0.40 pp (noise)</i>" within it.
QString points_text(const DiffData &d, const DeltaInput &in, size_t e, bool self) {
    std::optional<double> p = d.points(in, e, self);
    if (!p)
        return QStringLiteral("-");
    QString text = std::fabs(*p) < 0.005
                       ? QStringLiteral("0.00 pp")
                       : QStringLiteral("%1%2 pp").arg(*p > 0 ? "+" : "").arg(*p, 0, 'f', 2);
    auto t = d.test(in, e, self);
    if (t && !t->significant && std::fabs(*p) >= 0.005)
        return "<i>" + text + " " + QObject::tr("(noise)") + "</i>";
    return text;
}

} // namespace

QString diff_tooltip(const DiffData &d, DiffData::Tree t, uint32_t node) {
    DeltaInput in = d.node_delta(t, node);
    QString s = "<hr><b>" + QObject::tr("against the base") + "</b> " +
                QString::fromStdString(d.base->path).toHtmlEscaped();
    if (!in.now.self)
        return s + "<br>" + QObject::tr("(this view is not compared)");
    if (!in.base.self)
        s += "<br><i>" + QObject::tr("the base has no such call path (0 %)") + "</i>";
    s += "<table><tr><th></th><th align=right>" + QObject::tr("base self") +
         "</th><th align=right>" + QObject::tr("base total") + "</th><th align=right>" +
         QObject::tr("change self") + "</th><th align=right>" + QObject::tr("change total") +
         "</th></tr>";
    for (size_t e = 0; e < d.comparison.events.size(); ++e)
        s += "<tr><td>" + QString::fromStdString(d.comparison.events[e]).toHtmlEscaped() +
             "</td><td align=right>" + figure(d, in.base, true, e, true) + "</td><td align=right>" +
             figure(d, in.base, true, e, false) + "</td><td align=right>" +
             points_text(d, in, e, true) + "</td><td align=right>" + points_text(d, in, e, false) +
             "</td></tr>";
    return s + "</table>";
}

QString diff_legend(const DiffData &d) {
    return QObject::tr("Compared with %1: red grew, blue shrank (self share, full colour at the "
                       "largest change drawn); grey is within noise: a change the two runs' "
                       "sample counts (%2 and %3) cannot tell from chance at %4 % confidence "
                       "(two-proportion z-test)")
        .arg(QString::fromStdString(d.base->path))
        .arg(d.comparison.base.samples)
        .arg(d.comparison.now.samples)
        .arg(d.confidence * 100, 0, 'g', 3);
}

} // namespace cpcprof::gui
