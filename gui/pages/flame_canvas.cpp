// SPDX-License-Identifier: MIT
#include "gui/pages/flame_canvas.h"

#include "gui/pages/flame_diff.h"
#include "gui/pages/flame_tooltip.h"
#include "profiler/analysis/accounting_text.h"
#include "profiler/analysis/flame_model.h"
#include "profiler/analysis/flame_render.h"
#include "profiler/analysis/table_format.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QSaveFile>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_set>

namespace cpcprof::gui {

namespace {

// The distinct modules of the functions, in the order of their names.
std::vector<std::string_view> modules_of(const std::vector<analysis::FunctionInfo> &functions) {
    std::unordered_set<std::string_view> seen;
    const std::string *last = nullptr;
    for (const analysis::FunctionInfo &f : functions) {
        if (last && *last == f.module) // functions of a module mostly come together
            continue;
        seen.insert(f.module);
        last = &f.module;
    }
    std::vector<std::string_view> out(seen.begin(), seen.end());
    std::sort(out.begin(), out.end());
    return out;
}

// A function's colour: one hue per module, spread around the wheel by
// the golden angle in the order of the modules' names (the same on every
// run of the same program), pale enough for black text; each function a
// shade of its module's hue.
QColor function_colour(const analysis::FunctionInfo &f,
                       const std::vector<std::string_view> &modules) {
    auto m = size_t(std::lower_bound(modules.begin(), modules.end(), std::string_view(f.module)) -
                    modules.begin());
    int hue = int(std::lround(std::fmod(double(m) * 137.508, 360.0)));
    size_t h = std::hash<std::string>{}(f.name);
    int sat = 70 + int(h % 70); // shades of the hue
    int val = 225 + int((h >> 8) % 31);
    return QColor::fromHsv(hue, sat, val);
}

} // namespace

FlameCanvas::FlameCanvas(QWidget *parent) : QWidget(parent) {
    setObjectName("flameCanvas");
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void FlameCanvas::setProfile(ProfilePtr profile) {
    profile_ = std::move(profile);
    zoom_ = 0;
    history_.clear();
    search_.reset();
    selected_ = 0;
    collapsed_.reset();
    if (collapse_ && profile_)
        collapsed_ = analysis::CallTree::top_down(*profile_->query, true, true);
    // Colours are made as frames are drawn: for every function at once,
    // 91,000 of them took the GUI thread 20 ms.
    modules_.clear();
    colours_.clear();
    if (profile_) {
        modules_ = modules_of(profile_->query->functions());
        colours_.assign(profile_->query->functions().size(), QColor());
    }
    if (inverted_ && (!profile_ || !profile_->bottom_up))
        inverted_ = false;
    relayout();
    emit selectionChanged(0, {});
    emit zoomChanged(zoom_);
}

void FlameCanvas::setEvent(int event) {
    event_ = event;
    relayout();
}

bool FlameCanvas::setInverted(bool inverted) {
    if (inverted && (!profile_ || !profile_->bottom_up))
        return false;
    inverted_ = inverted;
    showAnotherTree();
    return true;
}

void FlameCanvas::showAnotherTree() {
    zoom_ = 0;
    selected_ = 0;
    history_.clear();
    relayout();
    emit selectionChanged(0, {});
    emit zoomChanged(zoom_);
}

void FlameCanvas::setCollapseRecursion(bool on) {
    if (on == collapse_)
        return;
    collapse_ = on;
    if (on && profile_ && !collapsed_)
        collapsed_ = analysis::CallTree::top_down(*profile_->query, true, true);
    showAnotherTree();
}

void FlameCanvas::setSearch(std::shared_ptr<const SearchResult> search) {
    search_ = std::move(search);
    update();
}

void FlameCanvas::setDiff(DiffPtr diff) {
    diff_ = std::move(diff);
    relayout();
}

const analysis::CallTree *FlameCanvas::tree() const {
    if (!profile_)
        return nullptr;
    if (!inverted_ && collapse_ && collapsed_ && !diff())
        return &*collapsed_;
    const auto &t = inverted_ ? profile_->bottom_up : profile_->top_down;
    return t ? &*t : nullptr;
}

void FlameCanvas::zoomTo(uint32_t node) {
    if (node == zoom_ || !tree() || node >= tree()->nodes().size())
        return;
    history_.push_back(zoom_);
    zoom_ = node;
    relayout();
    emit zoomChanged(zoom_);
}

bool FlameCanvas::zoomOut() {
    if (history_.empty())
        return false;
    zoom_ = history_.back();
    history_.pop_back();
    relayout();
    emit zoomChanged(zoom_);
    return true;
}

int FlameCanvas::rowHeight() const {
    return fontMetrics().height() + 4;
}

void FlameCanvas::relayout() {
    const analysis::CallTree *t = tree();
    if (t && profile_ && event_ >= 0 && size_t(event_) < profile_->query->events().size())
        layout_ = layout_flame(*profile_->query, *t, zoom_, event_, width());
    else
        layout_ = {};
    auto which = inverted_ ? DiffData::BottomUp : DiffData::TopDown;
    largest_change_ = diff() ? largest_change(*diff(), which, layout_, event_) : 0;
    setMinimumHeight(int(layout_.rows) * rowHeight());
    if (selected_ != 0 && !laidOut(selected_))
        select(0);
    update();
}

const FlameFrame *FlameCanvas::laidOut(uint32_t node) const {
    for (const FlameFrame &f : layout_.frames)
        if (f.node == node)
            return &f;
    return nullptr;
}

void FlameCanvas::select(uint32_t node) {
    const FlameFrame *f = node != 0 ? laidOut(node) : nullptr;
    selected_ = f ? node : 0;
    update();
    emit selectionChanged(selected_, f ? frameRect(*f).toAlignedRect() : QRect());
}

const FlameFrame *FlameCanvas::neighbour(const FlameFrame &from, int key) const {
    // Up is towards the leaves in a flame (roots at the bottom) and towards
    // the roots in an icicle.
    bool callee = (key == Qt::Key_Up) != inverted_;
    const FlameFrame *best = nullptr;
    double mid = from.x + from.width / 2;
    for (const FlameFrame &f : layout_.frames) {
        if (key == Qt::Key_Left || key == Qt::Key_Right) {
            if (f.row != from.row)
                continue;
            bool side = key == Qt::Key_Left ? f.x < from.x : f.x > from.x;
            if (side && (!best || std::abs(f.x - from.x) < std::abs(best->x - from.x)))
                best = &f;
        } else if (callee) {
            // The widest callee (its frames lie within the caller's).
            if (f.row == from.row + 1 && f.x >= from.x - 0.5 &&
                f.x + f.width <= from.x + from.width + 0.5 && (!best || f.width > best->width))
                best = &f;
        } else if (f.row + 1 == from.row && f.x <= mid && mid <= f.x + f.width) {
            best = &f; // the caller: the frame under the middle one row out
        }
    }
    return best;
}

void FlameCanvas::resizeEvent(QResizeEvent *) {
    relayout();
}

QRectF FlameCanvas::frameRect(const FlameFrame &f) const {
    int h = rowHeight();
    // The graph sits at the top of the page, the root its bottom row (or
    // its top row, inverted); what the page has beyond it stays blank.
    double y = inverted_ ? double(f.row) * h : double(int(layout_.rows) - 1 - int(f.row)) * h;
    return {f.x, y, f.width, double(h - 1)};
}

const FlameFrame *FlameCanvas::frameAt(QPointF pos) const {
    for (const FlameFrame &f : layout_.frames)
        if (frameRect(f).contains(pos))
            return &f;
    return nullptr;
}

const QColor &FlameCanvas::functionColour(uint32_t fn) const {
    QColor &c = colours_[fn];
    if (!c.isValid())
        c = function_colour(profile_->query->functions()[fn], modules_);
    return c;
}

QColor FlameCanvas::fillColour(uint32_t node) const {
    const analysis::CallTree *t = tree();
    if (!t || node >= t->nodes().size())
        return palette().color(QPalette::Base);
    const analysis::CallTree::Node &n = t->nodes()[node];
    bool searching = search_ && !search_->functions.empty();
    if (searching) {
        bool hit =
            n.function < search_->function_matches.size() && search_->function_matches[n.function];
        if (hit)
            return n.inlined ? QColor(240, 120, 230) : QColor(210, 40, 200);
    }
    auto which = inverted_ ? DiffData::BottomUp : DiffData::TopDown;
    QColor c = diff() ? change_colour(frame_signal(*diff(), which, node, event_), largest_change_)
               : n.function < colours_.size() ? functionColour(n.function)
                                              : QColor(200, 200, 200);
    if (n.inlined && !diff())
        c = c.lighter(125);
    if (searching) {
        int g = qGray(c.rgb());
        c = QColor(g, g, g).lighter(115);
    }
    return c;
}

const QBrush &FlameCanvas::brush(const QColor &c) const {
    auto it = brushes_.find(c.rgb());
    if (it == brushes_.end())
        it = brushes_.insert(c.rgb(), QBrush(c));
    return *it;
}

void FlameCanvas::paintGraph(QPainter &p) const {
    const analysis::CallTree *t = tree();
    if (!t)
        return;
    const auto &nodes = t->nodes();
    const auto &functions = profile_->query->functions();
    QPen outline(palette().color(QPalette::Base), 1);
    QPen inline_outline(QColor(90, 90, 90), 1, Qt::DashLine);
    QPen selected_outline(Qt::black, 2);
    QPen text_pen(Qt::black);
    QFont plain = font(), italic = font();
    italic.setItalic(true);
    QFontMetricsF fm(plain);
    for (const FlameFrame &f : layout_.frames) {
        QRectF r = frameRect(f);
        const analysis::CallTree::Node &n = nodes[f.node];
        p.setPen(f.node == selected_ ? selected_outline : n.inlined ? inline_outline : outline);
        p.setBrush(brush(fillColour(f.node)));
        p.drawRect(f.node == selected_ ? r.adjusted(1, 1, -1, -1) : r);
        if (r.width() < 3 * fm.averageCharWidth())
            continue;
        QString name = QString::fromStdString(functions[n.function].name);
        if (n.inlined)
            name += " [inline]";
        QString shown = fm.elidedText(name, Qt::ElideRight, r.width() - 6);
        if (shown.size() <= 1)
            continue;
        p.setFont(n.inlined ? italic : plain);
        p.setPen(text_pen);
        p.drawText(r.adjusted(3, 0, -3, 0), Qt::AlignLeft | Qt::AlignVCenter, shown);
    }
}

void FlameCanvas::paintEvent(QPaintEvent *e) {
    QPainter p(this);
    p.fillRect(e->rect(), palette().color(QPalette::Base));
    if (layout_.frames.empty()) {
        QString why = tr("No profile loaded.");
        const storage::Reader *r = profile_ ? &profile_->query->reader() : nullptr;
        if (r && r->run().events.empty() && r->sample_count() > 0)
            why = tr("This profile holds %Ln sample(s) but no events: the list of what was "
                     "sampled is missing, so they cannot be weighed.",
                     nullptr, qlonglong(r->sample_count()));
        else if (profile_ && profile_->query->samples_kept() == 0)
            why = tr("This profile has no samples.");
        else if (profile_)
            why = tr("Nothing to draw for this event.");
        p.setPen(palette().color(QPalette::Text));
        p.drawText(rect(), Qt::AlignCenter, why);
    } else {
        paintGraph(p);
    }
    if (profile_)
        emit painted();
}

void FlameCanvas::mouseReleaseEvent(QMouseEvent *e) {
    if (e->button() != Qt::LeftButton)
        return QWidget::mouseReleaseEvent(e);
    if (const FlameFrame *f = frameAt(e->position()))
        zoomTo(f->node);
}

void FlameCanvas::keyPressEvent(QKeyEvent *e) {
    switch (e->key()) {
    case Qt::Key_Escape:
    case Qt::Key_Backspace:
        if (zoomOut())
            return;
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (selected_ != 0) {
            zoomTo(selected_);
            return;
        }
        break;
    case Qt::Key_Up:
    case Qt::Key_Down:
    case Qt::Key_Left:
    case Qt::Key_Right: {
        const FlameFrame *from = selected_ != 0 ? laidOut(selected_) : nullptr;
        if (!from) {
            // The first key selects the zoomed frame (or the widest root).
            const FlameFrame *start = zoom_ != 0 ? laidOut(zoom_) : nullptr;
            const FlameFrame *widest_root = nullptr;
            for (const FlameFrame &f : layout_.frames)
                if (f.row == 0 && (!widest_root || f.width > widest_root->width))
                    widest_root = &f;
            if (!start)
                start = widest_root;
            if (start)
                select(start->node);
            return;
        }
        if (const FlameFrame *to = neighbour(*from, e->key()))
            select(to->node);
        return;
    }
    default:
        break;
    }
    QWidget::keyPressEvent(e);
}

void FlameCanvas::contextMenuEvent(QContextMenuEvent *e) {
    const FlameFrame *f = frameAt(e->pos());
    if (!f)
        return;
    uint32_t node = f->node;
    uint32_t fn = tree()->nodes()[node].function;
    QMenu menu(this);
    menu.addAction(tr("Zoom in"), this, [this, node] { zoomTo(node); });
    menu.addAction(tr("Zoom out"), this, [this] { zoomOut(); })->setEnabled(!history_.empty());
    menu.addSeparator();
    menu.addAction(tr("Show in top-down"), this,
                   [this, fn] { emit showFunction(fn, FunctionView::TopDown); });
    menu.addAction(tr("Show in bottom-up"), this,
                   [this, fn] { emit showFunction(fn, FunctionView::BottomUp); });
    menu.addAction(tr("Show in caller/callee"), this,
                   [this, fn] { emit showFunction(fn, FunctionView::CallerCallee); });
    menu.addAction(tr("Show source"), this,
                   [this, fn] { emit showFunction(fn, FunctionView::Source); });
    menu.addSeparator();
    menu.addAction(tr("Keep only stacks through this function"), this,
                   [this, fn] { emit filterByFunction(fn, true); });
    menu.addAction(tr("Hide stacks through this function"), this,
                   [this, fn] { emit filterByFunction(fn, false); });
    menu.exec(e->globalPos());
}

bool FlameCanvas::event(QEvent *e) {
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const FlameFrame *f = frameAt(help->pos());
        if (f && profile_)
            QToolTip::showText(
                help->globalPos(),
                frame_tooltip(*profile_, *tree(), f->node) +
                    (diff()
                         ? diff_tooltip(*diff(), inverted_ ? DiffData::BottomUp : DiffData::TopDown,
                                        f->node)
                         : QString()),
                this, frameRect(*f).toAlignedRect());
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

bool FlameCanvas::exportPage(const QString &path, bool html, QString *error) const {
    if (!profile_ || event_ < 0 || size_t(event_) >= profile_->query->events().size()) {
        *error = tr("No profile to export.");
        return false;
    }
    const analysis::Query &q = *profile_->query;
    flamegraph::RenderOptions ro;
    ro.title = (inverted_ ? "Icicle graph: " : "Flame graph: ") + profile_->path;
    std::string sub = profile_->path + ": ";
    analysis::append_grouped(sub, q.samples_kept());
    sub += q.samples_kept() == 1 ? " sample" : " samples";
    if (q.samples_kept() != q.samples_read()) {
        sub += " of ";
        analysis::append_grouped(sub, q.samples_read());
    }
    sub += "; width: " + q.events()[size_t(event_)].name;
    if (inverted_)
        sub += "; inverted (callers below)";
    std::string stacks = analysis::complete_stacks_text(q.samples_complete(), q.samples_kept(),
                                                        q.reader().run().call_graph);
    if (!stacks.empty())
        sub += "; " + stacks;
    ro.subtitle = sub;
    ro.event = event_;
    ro.inverted = inverted_;
    std::string text;
    if (html) {
        std::vector<int> weights{-1};
        for (size_t e = 0; e < q.events().size(); ++e)
            weights.push_back(int(e));
        text = flamegraph::render_html(
            q, analysis::build_model(q, inverted_, weights, flamegraph::kHtmlMinShare), ro);
    } else {
        text = flamegraph::render_svg(
            q, analysis::build_model(q, inverted_, {event_}, flamegraph::kSvgMinShare), ro);
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly) ||
        out.write(text.data(), qint64(text.size())) != qint64(text.size()) || !out.commit()) {
        *error = tr("%1: cannot be written (%2)").arg(path, out.errorString());
        return false;
    }
    return true;
}

bool FlameCanvas::exportPng(const QString &path, QString *error) const {
    QImage img(size(), QImage::Format_ARGB32);
    img.fill(palette().color(QPalette::Base));
    {
        QPainter p(&img);
        paintGraph(p);
    }
    if (!img.save(path, "PNG")) {
        *error = tr("%1: cannot be written").arg(path);
        return false;
    }
    return true;
}

} // namespace cpcprof::gui
