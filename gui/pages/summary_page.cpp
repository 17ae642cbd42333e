// SPDX-License-Identifier: MIT
#include "gui/pages/summary_page.h"

#include "gui/model/summary.h"

#include <QTextBrowser>
#include <QVBoxLayout>

namespace cpcprof::gui {

namespace {

QString esc(const std::string &s) {
    return QString::fromStdString(s).toHtmlEscaped();
}

QString percent(double share) {
    return QString::number(share * 100, 'f', 1) + " %";
}

QString summary_html(const ProfileData &p, int event) {
    Summary s = make_summary(p, event);
    QString h = "<h2>Profile</h2><table cellspacing=2 cellpadding=2>";
    for (const SummaryLine &l : s.lines)
        h += "<tr><td><b>" + esc(l.label) + "</b></td><td>" + esc(l.value) + "</td></tr>";
    h += "</table><h3>Modules with code no symbol names</h3>";
    if (s.modules_without_symbols.empty() && s.symbols_fix.empty())
        h += "<p>none</p>";
    if (!s.modules_without_symbols.empty()) {
        h += "<ul>";
        for (const std::string &m : s.modules_without_symbols)
            h += "<li>" + esc(m) + "</li>";
        h += "</ul>";
    }
    if (!s.symbols_fix.empty())
        h += "<p>" + esc(s.symbols_fix) + "</p>";
    const auto &events = p.query->events();
    QString ev = event >= 0 && size_t(event) < events.size() ? esc(events[size_t(event)].name)
                                                             : QString("?");
    h += "<h3>Top functions by self " + ev +
         "</h3><table cellspacing=2 cellpadding=2>"
         "<tr><th align=right>self</th><th align=right>total</th><th align=right>samples</th>"
         "<th align=left>function</th><th align=left>module</th></tr>";
    for (const SummaryFunction &f : s.top)
        h += "<tr><td align=right>" + percent(f.self_share) + "</td><td align=right>" +
             percent(f.total_share) + "</td><td align=right>" + QString::number(f.self_samples) +
             "</td><td>" + esc(f.name) + "</td><td>" + esc(f.module) + "</td></tr>";
    h += "</table>";
    return h;
}

} // namespace

SummaryPage::SummaryPage(QWidget *parent) : QWidget(parent), view_(new QTextBrowser(this)) {
    view_->setObjectName("summaryText");
    view_->setOpenLinks(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(view_);
    view_->setPlainText(tr("No profile loaded. File > Open chooses one."));
}

void SummaryPage::setProfile(ProfilePtr profile) {
    profile_ = std::move(profile);
    refresh();
}

void SummaryPage::setEvent(int event) {
    event_ = event;
    refresh();
}

QString SummaryPage::text() const {
    return view_->toPlainText();
}

void SummaryPage::refresh() {
    if (profile_ && profile_->query)
        view_->setHtml(summary_html(*profile_, event_));
}

} // namespace cpcprof::gui
