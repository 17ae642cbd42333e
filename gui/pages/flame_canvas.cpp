// SPDX-License-Identifier: MIT
#include "gui/pages/flame_canvas.h"

#include "gui/pages/flame_diff.h"
#include "gui/pages/flame_tooltip.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QSvgGenerator>
#include <QToolTip>

#include <functional>

namespace cpcprof::gui {

namespace {

// A warm, readable colour per module, the same on every run.
QColor module_colour(const std::string &module) {
    size_t h = std::hash<std::string>{}(module);
    int hue = int(h % 50);              // red to yellow, as flame graphs are
    int sat = 120 + int((h >> 8) % 80); // varied so neighbours differ
    int val = 215 + int((h >> 16) % 35);
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
    module_colour_.clear();
    if (profile_)
        for (const analysis::FunctionInfo &f : profile_->query->functions())
            module_colour_.push_back(module_colour(f.module));
    if (inverted_ && (!profile_ || !profile_->bottom_up))
        inverted_ = false;
    relayout();
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
    zoom_ = 0;
    history_.clear();
    relayout();
    emit zoomChanged(zoom_);
    return true;
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
    update();
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
    QColor c = diff() ? change_colour(frame_change(*diff(), which, node, event_), largest_change_)
               : n.function < module_colour_.size() ? module_colour_[n.function]
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
    QPen text_pen(Qt::black);
    QFont plain = font(), italic = font();
    italic.setItalic(true);
    QFontMetricsF fm(plain);
    for (const FlameFrame &f : layout_.frames) {
        QRectF r = frameRect(f);
        const analysis::CallTree::Node &n = nodes[f.node];
        p.setPen(n.inlined ? inline_outline : outline);
        p.setBrush(brush(fillColour(f.node)));
        p.drawRect(r);
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
        if (profile_ && profile_->query->samples_kept() == 0)
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
    if (e->key() == Qt::Key_Escape || e->key() == Qt::Key_Backspace) {
        if (zoomOut())
            return;
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

bool FlameCanvas::exportSvg(const QString &path, QString *error) const {
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(size());
    gen.setViewBox(rect());
    gen.setTitle(tr("cpcprof flame graph"));
    QPainter p;
    if (!p.begin(&gen)) {
        *error = tr("%1: cannot be written").arg(path);
        return false;
    }
    p.fillRect(rect(), palette().color(QPalette::Base));
    paintGraph(p);
    if (!p.end()) {
        *error = tr("%1: cannot be written").arg(path);
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
