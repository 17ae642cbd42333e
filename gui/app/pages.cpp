#include "app/pages.h"

#include "views/caller_callee_page.h"
#include "views/hotspots_page.h"
#include "views/tree_page.h"

namespace cpcprof::gui {

namespace {

template <typename P> Page adapt(P *page, const std::function<void(uint32_t)> &activated) {
    QObject::connect(page, &P::functionActivated, page, activated);
    return {page, [page](ProfilePtr p) { page->setProfile(std::move(p)); },
            [page](int e) { page->setEvent(e); },
            [page](uint32_t fn) { page->selectFunction(fn); }};
}

} // namespace

Pages make_pages(QWidget *parent, const std::function<void(uint32_t)> &activated) {
    return {adapt(new TreePage(TreePage::Kind::TopDown, parent), activated),
            adapt(new TreePage(TreePage::Kind::BottomUp, parent), activated),
            adapt(new CallerCalleePage(parent), activated),
            adapt(new HotspotsPage(parent), activated)};
}

} // namespace cpcprof::gui
