#include "app/pages.h"

#if CPCPROF_GUI_HAVE_VIEWS
#include "views/caller_callee_page.h"
#include "views/hotspots_page.h"
#include "views/tree_page.h"
#else
#include <QLabel>
#endif

namespace cpcprof::gui {

namespace {

#if CPCPROF_GUI_HAVE_VIEWS
template <typename P> Page adapt(P *page, const std::function<void(uint32_t)> &activated) {
    QObject::connect(page, &P::functionActivated, page, activated);
    return {page, [page](ProfilePtr p) { page->setProfile(std::move(p)); },
            [page](int e) { page->setEvent(e); },
            [page](uint32_t fn) { page->selectFunction(fn); }};
}
#else
Page placeholder(QWidget *parent, const QString &view) {
    auto *label =
        new QLabel(QObject::tr("The %1 view is not in this build: cpcprof-gui was built without "
                               "gui/views (CPCPROF_GUI_HAVE_VIEWS).")
                       .arg(view),
                   parent);
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    return {label, [](ProfilePtr) {}, [](int) {}, [](uint32_t) {}};
}
#endif

} // namespace

Pages make_pages(QWidget *parent, const std::function<void(uint32_t)> &activated) {
#if CPCPROF_GUI_HAVE_VIEWS
    return {adapt(new TreePage(TreePage::Kind::TopDown, parent), activated),
            adapt(new TreePage(TreePage::Kind::BottomUp, parent), activated),
            adapt(new CallerCalleePage(parent), activated),
            adapt(new HotspotsPage(parent), activated)};
#else
    Q_UNUSED(activated);
    return {placeholder(parent, QObject::tr("top-down")),
            placeholder(parent, QObject::tr("bottom-up")),
            placeholder(parent, QObject::tr("caller/callee")),
            placeholder(parent, QObject::tr("hotspots"))};
#endif
}

} // namespace cpcprof::gui
