// SPDX-License-Identifier: MIT
#include "gui/pages/flame_graph.h"

#include "gui/pages/flame_diff.h"
#include "gui/pages/flame_tooltip.h"
#include "profiler/analysis/flame_layout.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

namespace cpcprof::gui {

FlameGraph::FlameGraph(QWidget *parent)
    : QWidget(parent), canvas_(new FlameCanvas), scroll_(new QScrollArea), breadcrumb_(new QLabel),
      search_box_(new QLineEdit), regex_(new QCheckBox(tr("Regex"))),
      inverted_(new QCheckBox(tr("Inverted (bottom-up)"))),
      collapse_(new QCheckBox(tr("Collapse recursion"))), matches_(new QLabel),
      selection_(new QLabel), legend_(new QLabel), searches_(this) {
    breadcrumb_->setObjectName("breadcrumb");
    breadcrumb_->setTextFormat(Qt::RichText);
    breadcrumb_->setTextInteractionFlags(Qt::LinksAccessibleByMouse);
    // A deep zoom's path wraps: a label's text never widens the window.
    breadcrumb_->setWordWrap(true);
    search_box_->setObjectName("flameSearch");
    search_box_->setPlaceholderText(tr("Search functions (substring, or regex)"));
    search_box_->setClearButtonEnabled(true);
    regex_->setObjectName("flameRegex");
    inverted_->setObjectName("flameInverted");
    matches_->setObjectName("flameMatches");
    matches_->setWordWrap(true);
    selection_->setObjectName("flameSelection");
    selection_->setWordWrap(true);
    selection_->setTextFormat(Qt::PlainText);
    showSelection(0);
    legend_->setObjectName("flameLegend");
    legend_->setWordWrap(true);
    legend_->setTextFormat(Qt::PlainText);
    legend_->hide();

    auto *bar = new QHBoxLayout;
    bar->addWidget(search_box_, 2);
    bar->addWidget(regex_);
    bar->addWidget(matches_, 3);
    bar->addWidget(collapse_);
    bar->addWidget(inverted_);
    scroll_->setWidgetResizable(true);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->setWidget(canvas_);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(breadcrumb_);
    layout->addWidget(selection_);
    layout->addWidget(legend_);
    layout->addWidget(scroll_, 1);

    connect(search_box_, &QLineEdit::textChanged, this, &FlameGraph::startSearch);
    connect(regex_, &QCheckBox::toggled, this, &FlameGraph::startSearch);
    connect(inverted_, &QCheckBox::toggled, this, [this](bool on) {
        if (!canvas_->setInverted(on)) {
            QSignalBlocker block(inverted_);
            inverted_->setChecked(false);
            if (profile_)
                matches_->setText(QString::fromStdString(profile_->bottom_up_error));
        }
    });
    collapse_->setObjectName("flameCollapse");
    collapse_->setToolTip(tr("Draw a function's calls of itself as one frame (f > f > g as "
                             "f > g); not while inverted or comparing"));
    connect(collapse_, &QCheckBox::toggled, canvas_, &FlameCanvas::setCollapseRecursion);
    connect(canvas_, &FlameCanvas::zoomChanged, this, &FlameGraph::updateBreadcrumb);
    connect(canvas_, &FlameCanvas::zoomChanged, this, &FlameGraph::scrollToRoot);
    connect(canvas_, &FlameCanvas::showFunction, this, &FlameGraph::showFunction);
    connect(canvas_, &FlameCanvas::filterByFunction, this, &FlameGraph::filterByFunction);
    connect(canvas_, &FlameCanvas::selectionChanged, this, [this](uint32_t node, QRect rect) {
        showSelection(node);
        if (node != 0)
            scroll_->ensureVisible(rect.center().x(), rect.center().y(), 0, rect.height() * 2);
    });
    connect(breadcrumb_, &QLabel::linkActivated, this,
            [this](const QString &link) { canvas_->zoomTo(link.toUInt()); });
    updateBreadcrumb();
}

void FlameGraph::setProfile(ProfilePtr profile) {
    profile_ = std::move(profile);
    searches_.cancel();
    search_.reset();
    canvas_->setProfile(profile_);
    inverted_->setEnabled(profile_ && profile_->bottom_up);
    {
        QSignalBlocker block(inverted_);
        inverted_->setChecked(canvas_->inverted());
    }
    startSearch();
}

void FlameGraph::setDiff(DiffPtr diff) {
    canvas_->setDiff(std::move(diff));
    const DiffData *d = canvas_->diff();
    legend_->setVisible(d != nullptr);
    legend_->setText(d ? diff_legend(*d) : QString());
}

void FlameGraph::showSelection(uint32_t node) {
    const analysis::CallTree *t = canvas_->tree();
    if (node == 0 || !t || !canvas_->profile())
        selection_->setText(tr("Click a frame, or select one with the arrow keys and press Enter, "
                               "to zoom in; Esc zooms out"));
    else
        selection_->setText(frame_summary(*canvas_->profile(), *t, node, event_));
}

void FlameGraph::scrollToRoot() {
    // After the layout pass that gives the canvas its new height.
    QTimer::singleShot(0, this, [this] {
        QScrollBar *bar = scroll_->verticalScrollBar();
        bar->setValue(canvas_->inverted() ? bar->minimum() : bar->maximum());
    });
}

void FlameGraph::setEvent(int event) {
    event_ = event;
    canvas_->setEvent(event);
    showSelection(canvas_->selected());
    updateMatches();
}

QString FlameGraph::searchText() const {
    return search_box_->text();
}

void FlameGraph::startSearch() {
    std::string pattern = search_box_->text().toStdString();
    if (!profile_ || pattern.empty()) {
        searches_.cancel();
        search_.reset();
        canvas_->setSearch(nullptr);
        updateMatches();
        emit searchFinished();
        return;
    }
    searches_.run(
        [profile = profile_, pattern, regex = regex_->isChecked()] {
            return std::make_shared<const SearchResult>(
                analysis::search(*profile->query, pattern, regex));
        },
        [this](std::shared_ptr<const SearchResult> r) {
            search_ = std::move(r);
            canvas_->setSearch(search_);
            updateMatches();
            emit searchFinished();
        });
}

std::optional<double> FlameGraph::searchShare() const {
    if (!search_ || !profile_ || !search_->error.empty())
        return std::nullopt;
    return search_->share(*profile_->query, event_);
}

void FlameGraph::updateMatches() {
    if (!search_ || !profile_) {
        matches_->clear();
        return;
    }
    if (!search_->error.empty()) {
        matches_->setText(QString::fromStdString(search_->error));
        return;
    }
    const auto &events = profile_->query->events();
    QString ev = size_t(event_) < events.size() ? QString::fromStdString(events[event_].name) : "";
    auto share = searchShare();
    matches_->setText(
        tr("%n function(s) match: %1 % of %2 (%3 samples)", "", int(search_->functions.size()))
            .arg(share ? QString::number(*share * 100, 'f', 2) : QString("-"))
            .arg(ev)
            .arg(search_->total.samples));
}

void FlameGraph::updateBreadcrumb() {
    const analysis::CallTree *t = canvas_->tree();
    QString html = "<a href=\"0\">all</a>";
    breadcrumb_plain_ = "all";
    if (t) {
        const auto &functions = canvas_->profile()->query->functions();
        for (uint32_t v : analysis::flame_path(
                 analysis::CallTreeFlame(*canvas_->profile()->query, *t, {}), canvas_->zoom())) {
            QString name = QString::fromStdString(functions[t->nodes()[v].function].name);
            html += " &gt; <a href=\"" + QString::number(v) + "\">" + name.toHtmlEscaped() + "</a>";
            breadcrumb_plain_ += " > " + name;
        }
    }
    breadcrumb_->setText(html);
}

QString FlameGraph::breadcrumb() const {
    return breadcrumb_plain_;
}

} // namespace cpcprof::gui
