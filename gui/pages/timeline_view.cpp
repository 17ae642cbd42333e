// SPDX-License-Identifier: MIT
#include "gui/pages/timeline_view.h"

#include <QContextMenuEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace cpcprof::gui {

namespace {

constexpr int kAxis = 24;   // the time axis above the rows
constexpr int kRow = 22;    // a row's height
constexpr int kLabel = 210; // the labels' column
constexpr int kMargin = 8;  // right of the plot
constexpr int kDrag = 3;    // pixels a press moves before it is a drag
constexpr int kBinPx = 3;   // a density column's width

// The hue of an event's bars: the first (sampling) event orange, then
// blue, green, purple, red, teal.
int hue_of(int event) {
    static const int hues[] = {24, 212, 120, 280, 0, 175};
    return hues[size_t(std::max(event, 0)) % std::size(hues)];
}

QString seconds_text(int64_t ns, int64_t step) {
    int decimals = step >= 1'000'000'000 ? 0 : step >= 100'000'000 ? 1 : step >= 10'000'000 ? 2 : 3;
    return QString::number(double(ns) / 1e9, 'f', decimals) + " s";
}

bool has(const std::vector<ThreadId> &v, ThreadId t) {
    return std::find(v.begin(), v.end(), t) != v.end();
}

} // namespace

TimelineView::TimelineView(QWidget *parent) : QWidget(parent) {
    setObjectName("timelineView");
    setMouseTracking(false);
    setMinimumHeight(kAxis + 2 * kRow);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void TimelineView::setProfile(ProfilePtr profile) {
    profile_ = std::move(profile);
    timeline_ = profile_ ? make_timeline(*profile_->query) : Timeline{};
    window_ = timeline_.whole();
    zooms_.clear();
    range_.reset();
    threads_.clear();
    cpus_.clear();
    steps_.clear();
    updateGeometry();
    stale_ = true;
    update();
    emit selectionChanged();
    emit windowChanged();
}

void TimelineView::setEvent(int event) {
    event_ = event;
    stale_ = true;
    update();
}

void TimelineView::setSteps(std::vector<FilterStep> steps) {
    steps_ = std::move(steps);
    update();
}

void TimelineView::clearSelection() {
    range_.reset();
    threads_.clear();
    cpus_.clear();
    update();
    emit selectionChanged();
}

void TimelineView::setWindow(TimeRange w) {
    window_ = w;
    stale_ = true;
    update();
    emit windowChanged();
}

void TimelineView::zoomToSelection() {
    if (!range_ || range_->to_ns - range_->from_ns < 1000)
        return;
    zooms_.push_back(window_);
    TimeRange w = *range_;
    range_.reset();
    setWindow(w);
    emit selectionChanged();
}

void TimelineView::zoomOut() {
    if (zooms_.empty())
        return;
    TimeRange w = zooms_.back();
    zooms_.pop_back();
    setWindow(w);
}

void TimelineView::showWholeRun() {
    if (zooms_.empty())
        return;
    zooms_.clear();
    setWindow(timeline_.whole());
}

QSize TimelineView::sizeHint() const {
    return {900, kAxis + kRow * int(std::max<size_t>(timeline_.rows.size(), 2)) + 4};
}

int TimelineView::plotLeft() const {
    return kLabel;
}

int TimelineView::plotWidth() const {
    return std::max(1, width() - kLabel - kMargin);
}

int TimelineView::xOfTime(int64_t t) const {
    const double span = double(std::max<int64_t>(window_.to_ns - window_.from_ns, 1));
    const double x = double(t - window_.from_ns) / span * plotWidth();
    // Times outside the window: just beyond the plot's edges.
    return plotLeft() + int(std::lround(std::clamp(x, -1.0, double(plotWidth() + 1))));
}

int64_t TimelineView::timeOfX(int x) const {
    return timeline_.time_of_bin(double(x - plotLeft()), size_t(plotWidth()), window_);
}

int TimelineView::yOfRow(size_t r) const {
    return kAxis + int(r) * kRow + kRow / 2;
}

int TimelineView::rowAt(int y) const {
    if (y < kAxis)
        return -1;
    size_t r = size_t((y - kAxis) / kRow);
    return r < timeline_.rows.size() ? int(r) : -1;
}

void TimelineView::resizeEvent(QResizeEvent *) {
    stale_ = true;
}

size_t TimelineView::bins() const {
    return size_t(std::max(1, plotWidth() / kBinPx));
}

int TimelineView::binX(size_t c) const {
    return plotLeft() + int(c * size_t(plotWidth()) / bins());
}

bool TimelineView::showsOffCpu() const {
    if (!profile_ || profile_->query->off_cpu_event() < 0)
        return false;
    return event_ == profile_->query->off_cpu_event() ||
           event_ == profile_->query->wall_clock_event();
}

const std::vector<std::vector<uint64_t>> &TimelineView::densities() {
    if (stale_)
        rebin();
    return density_;
}

void TimelineView::rebin() {
    stale_ = false;
    density_ = profile_ ? timeline_.density(*profile_->query, event_, bins(), window_)
                        : std::vector<std::vector<uint64_t>>{};
    off_density_.clear();
    if (!profile_)
        return;
    const analysis::Query &q = *profile_->query;
    if (event_ == q.off_cpu_event())
        off_density_ = density_;
    else if (event_ == q.wall_clock_event())
        off_density_ = timeline_.density(q, q.off_cpu_event(), bins(), window_);
}

// Whether the filters in force keep the row's thread (all of a process
// row), or its processor.
bool TimelineView::shown(const TimelineRow &row) const {
    if (row.cpu >= 0)
        return std::all_of(steps_.begin(), steps_.end(), [&](const FilterStep &s) {
            return s.cpus.empty() ||
                   std::find(s.cpus.begin(), s.cpus.end(), row.cpu) != s.cpus.end();
        });
    for (const FilterStep &s : steps_) {
        if (s.pid && *s.pid != row.id.pid)
            return false;
        if (row.process)
            continue;
        if ((!s.only.empty() && !has(s.only, row.id)) || has(s.without, row.id))
            return false;
    }
    return true;
}

void TimelineView::paintEvent(QPaintEvent *) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!profile_) {
        p.drawText(rect(), Qt::AlignCenter, tr("No profile"));
        return;
    }
    if (stale_)
        rebin();
    paintAxis(p);
    // Each kind of row against its own busiest column.
    auto group = [](const TimelineRow &row) { return row.process ? 1 : row.cpu >= 0 ? 2 : 0; };
    uint64_t peak[3] = {1, 1, 1}; // thread rows, process rows, processor rows
    for (size_t r = 0; r < density_.size(); ++r)
        for (uint64_t v : density_[r])
            peak[group(timeline_.rows[r])] = std::max(peak[group(timeline_.rows[r])], v);
    for (size_t r = 0; r < timeline_.rows.size() && r < density_.size(); ++r)
        paintRow(p, r, peak[group(timeline_.rows[r])]);

    const int top = kAxis, bottom = kAxis + kRow * int(timeline_.rows.size());
    // Time the filters leave out, shaded.
    int64_t from = INT64_MIN, to = INT64_MAX;
    for (const FilterStep &s : steps_)
        if (s.time) {
            from = std::max(from, s.time->from_ns);
            to = std::min(to, s.time->to_ns);
        }
    QColor shade(128, 128, 128, 90);
    if (from != INT64_MIN && from > window_.from_ns)
        p.fillRect(QRect(QPoint(plotLeft(), top), QPoint(xOfTime(from), bottom)), shade);
    if (to != INT64_MAX && to < window_.to_ns)
        p.fillRect(QRect(QPoint(xOfTime(std::max(to, from)), top),
                         QPoint(plotLeft() + plotWidth(), bottom)),
                   shade);
    if (range_) {
        QRect sel(QPoint(xOfTime(range_->from_ns), top), QPoint(xOfTime(range_->to_ns), bottom));
        QColor fill = palette().highlight().color();
        fill.setAlpha(60);
        p.fillRect(sel, fill);
        p.setPen(palette().highlight().color());
        p.drawRect(sel.adjusted(0, 0, -1, -1));
    }
}

void TimelineView::paintAxis(QPainter &p) const {
    p.setPen(palette().text().color());
    const int64_t d = std::max<int64_t>(window_.to_ns - window_.from_ns, 1);
    // A tick every 1, 2 or 5 x 10^k ns, at least 90 pixels apart.
    auto pick = [&]() -> int64_t {
        for (int64_t mag = 1; mag <= d; mag *= 10)
            for (int64_t m : {1, 2, 5})
                if (double(m * mag) / double(d) * plotWidth() >= 90)
                    return m * mag;
        return d;
    };
    const int64_t step = std::max<int64_t>(1, pick());
    p.drawLine(plotLeft(), kAxis - 1, plotLeft() + plotWidth(), kAxis - 1);
    // From the first multiple of the step in the window.
    const int64_t first = (window_.from_ns + step - 1) / step * step;
    for (int64_t t = first; t <= window_.to_ns; t += step) {
        int x = xOfTime(t);
        p.drawLine(x, kAxis - 6, x, kAxis - 1);
        p.drawText(QRect(x + 3, 0, 90, kAxis - 4), Qt::AlignLeft | Qt::AlignVCenter,
                   seconds_text(t, step));
    }
    p.drawText(QRect(4, 0, kLabel - 8, kAxis - 2), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Process / thread"));
}

void TimelineView::paintRow(QPainter &p, size_t r, uint64_t peak) const {
    const TimelineRow &row = timeline_.rows[r];
    const QRect band(0, kAxis + int(r) * kRow, width(), kRow);
    const bool selected = row.cpu >= 0
                              ? std::find(cpus_.begin(), cpus_.end(), row.cpu) != cpus_.end()
                              : !row.process && has(threads_, row.id);
    if (selected)
        p.fillRect(band, palette().highlight().color().lighter(170));
    else if (row.process)
        p.fillRect(band, palette().alternateBase());
    if (row.cpu >= 0 && r > 0 && timeline_.rows[r - 1].cpu < 0) {
        // The processors' rows begin: a line apart from the processes.
        p.setPen(QPen(palette().text().color(), 2));
        p.drawLine(0, band.top() + 1, width(), band.top() + 1);
    }
    const bool kept = shown(row);
    QFont f = font();
    f.setBold(row.process);
    p.setFont(f);
    p.setPen(kept ? palette().text().color() : palette().placeholderText().color());
    QRect label = band.adjusted(row.is_thread() ? 18 : 4, 0, 0, 0);
    label.setRight(kLabel - 6);
    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(f).elidedText(QString::fromStdString(row.label), Qt::ElideRight,
                                          label.width()));
    p.setFont(font());
    const int hue = hue_of(event_);
    const int inner = kRow - 4, base = band.bottom() - 1;
    const auto &bins = density_[r];
    const uint64_t *off = r < off_density_.size() ? off_density_[r].data() : nullptr;
    for (size_t c = 0; c < bins.size(); ++c) {
        if (bins[c] == 0)
            continue;
        double share = double(bins[c]) / double(peak);
        int h = std::max(1, int(std::lround(share * inner)));
        QColor colour = kept ? QColor::fromHsv(hue, 90 + int(165 * share), 230 - int(60 * share))
                             : QColor(190, 190, 190);
        // Time off the CPU: the same hue, pale, above the time on it.
        const uint64_t waited = off ? std::min(off[c], bins[c]) : 0;
        const int h_off = waited == bins[c] ? h : int(std::lround(double(waited) / peak * inner));
        const int x = binX(c), w = binX(c + 1) - binX(c);
        if (h_off > 0)
            p.fillRect(x, base - h + 1, w, h_off,
                       kept ? QColor::fromHsv(hue, 70, 240) : QColor(220, 220, 220));
        if (h > h_off)
            p.fillRect(x, base - h + 1 + h_off, w, h - h_off, colour);
    }
    p.setPen(palette().mid().color());
    p.drawLine(0, band.bottom(), width(), band.bottom());
}

void TimelineView::selectRow(int r, bool toggle) {
    if (r >= 0 && timeline_.rows[size_t(r)].cpu >= 0) {
        const int cpu = timeline_.rows[size_t(r)].cpu;
        const bool in = std::find(cpus_.begin(), cpus_.end(), cpu) != cpus_.end();
        if (!toggle) {
            cpus_ = {cpu};
            threads_.clear();
        } else if (in) {
            std::erase(cpus_, cpu);
        } else {
            cpus_.push_back(cpu);
        }
        return;
    }
    if (!toggle)
        cpus_.clear();
    std::vector<ThreadId> ids;
    if (r >= 0) {
        const TimelineRow &row = timeline_.rows[size_t(r)];
        if (!row.process)
            ids.push_back(row.id);
        else
            for (const TimelineRow &t : timeline_.rows)
                if (t.is_thread() && t.id.pid == row.id.pid)
                    ids.push_back(t.id);
    }
    if (!toggle) {
        threads_ = ids;
    } else {
        bool all_in = !ids.empty() && std::all_of(ids.begin(), ids.end(),
                                                  [&](ThreadId t) { return has(threads_, t); });
        for (ThreadId t : ids) {
            if (all_in)
                std::erase(threads_, t);
            else if (!has(threads_, t))
                threads_.push_back(t);
        }
    }
}

void TimelineView::mousePressEvent(QMouseEvent *e) {
    if (e->button() != Qt::LeftButton || !profile_)
        return;
    int x = int(e->position().x());
    drag_from_ = x >= plotLeft() ? std::optional<int>(x) : std::nullopt;
    dragging_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent *e) {
    if (!drag_from_)
        return;
    int x = std::clamp(int(e->position().x()), plotLeft(), plotLeft() + plotWidth());
    if (!dragging_ && std::abs(x - *drag_from_) < kDrag)
        return;
    dragging_ = true;
    int a = std::min(x, *drag_from_), b = std::max(x, *drag_from_);
    range_ = TimeRange{timeOfX(a), timeOfX(b)};
    update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent *e) {
    if (e->button() != Qt::LeftButton || !profile_)
        return;
    if (dragging_) {
        mouseMoveEvent(e);
        if (range_ && range_->to_ns <= range_->from_ns)
            range_.reset();
    } else {
        // A click: its row's thread (or process); in the plot it also
        // drops the time range, as a click beside a selection does.
        if (drag_from_)
            range_.reset();
        selectRow(rowAt(int(e->position().y())), e->modifiers() & Qt::ControlModifier);
    }
    drag_from_.reset();
    dragging_ = false;
    update();
    emit selectionChanged();
}

bool TimelineView::event(QEvent *e) {
    if (e->type() != QEvent::ToolTip)
        return QWidget::event(e);
    auto *help = static_cast<QHelpEvent *>(e);
    int r = rowAt(help->pos().y());
    if (!profile_ || r < 0) {
        QToolTip::hideText();
        e->ignore();
        return true;
    }
    QToolTip::showText(help->globalPos(), tipOf(size_t(r), help->pos().x()), this);
    return true;
}

// Row r's name and samples, and at x its column's time and sum.
QString TimelineView::tipOf(size_t r, int x) {
    const TimelineRow &row = timeline_.rows[r];
    const auto &events = profile_->query->events();
    const size_t e = size_t(std::max(event_, 0));
    const QString name = e < events.size() ? QString::fromStdString(events[e].name) : QString();
    QLocale locale;
    QString text =
        QString::fromStdString(row.label) + "\n" +
        tr("%1 samples, %2 %3")
            .arg(locale.toString(qulonglong(row.cost.samples)),
                 locale.toString(qulonglong(e < row.cost.values.size() ? row.cost.values[e] : 0)),
                 name);
    const auto &bins = densities();
    if (x >= plotLeft() && x < plotLeft() + plotWidth() && r < bins.size()) {
        size_t c = std::min(bins[r].size() - 1,
                            size_t(x - plotLeft()) * bins[r].size() / size_t(plotWidth()));
        text += "\n" + tr("%1-%2 s: %3 %4")
                           .arg(double(timeOfX(binX(c))) / 1e9, 0, 'f', 3)
                           .arg(double(timeOfX(binX(c + 1))) / 1e9, 0, 'f', 3)
                           .arg(locale.toString(qulonglong(bins[r][c])), name);
    }
    return text;
}

void TimelineView::contextMenuEvent(QContextMenuEvent *e) {
    if (!profile_)
        return;
    int r = rowAt(e->pos().y());
    if (r >= 0) {
        const TimelineRow &row = timeline_.rows[size_t(r)];
        const bool unselected = row.cpu >= 0
                                    ? std::find(cpus_.begin(), cpus_.end(), row.cpu) == cpus_.end()
                                    : row.is_thread() && !has(threads_, row.id);
        if (unselected) {
            selectRow(r, false);
            update();
            emit selectionChanged();
        }
    }
    QMenu menu(this);
    menu.addAction(tr("Filter in on selection"), this, &TimelineView::filterInRequested)
        ->setEnabled(range_ || !threads_.empty() || !cpus_.empty());
    menu.addAction(tr("Exclude thread"), this, &TimelineView::excludeThreadsRequested)
        ->setEnabled(!threads_.empty());
    menu.addAction(tr("Only this process"), this, &TimelineView::onlyProcessRequested)
        ->setEnabled(!threads_.empty());
    menu.addSeparator();
    menu.addAction(tr("Zoom to selection"), this, &TimelineView::zoomToSelection)
        ->setEnabled(range_.has_value());
    menu.addAction(tr("Zoom out"), this, &TimelineView::zoomOut)->setEnabled(zoomed());
    menu.addAction(tr("Show whole run"), this, &TimelineView::showWholeRun)->setEnabled(zoomed());
    menu.addSeparator();
    menu.addAction(tr("Clear selection"), this, &TimelineView::clearSelection);
    menu.exec(e->globalPos());
}

} // namespace cpcprof::gui
