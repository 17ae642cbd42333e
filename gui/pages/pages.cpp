// SPDX-License-Identifier: MIT
#include "gui/pages/pages.h"

#include "gui/itemmodels/table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/pages/caller_callee_page.h"
#include "gui/pages/hotspots_page.h"
#include "gui/pages/tree_page.h"

namespace cpcprof::gui {

namespace {

template <typename P>
Page adapt(P *page, CostModel *model, const std::function<void(uint32_t)> &activated,
           const std::function<void(uint32_t, bool)> &filter) {
    QObject::connect(page, &P::functionActivated, page, activated);
    if constexpr (requires { &P::filterByFunction; })
        QObject::connect(page, &P::filterByFunction, page, filter);
    return {page, [page](ProfilePtr p) { page->setProfile(std::move(p)); },
            [page](int e) { page->setEvent(e); }, [page](uint32_t fn) { page->selectFunction(fn); },
            [page, model](DiffPtr d) {
                ProfilePtr shown = model->profile();
                model->setDiff(std::move(d));
                page->setProfile(shown);
            }};
}

template <typename P>
Page adapt(P *page, const std::function<void(uint32_t)> &activated,
           const std::function<void(uint32_t, bool)> &filter) {
    return adapt(page, page->model(), activated, filter);
}

} // namespace

Pages make_pages(QWidget *parent, const std::function<void(uint32_t)> &activated,
                 const std::function<void(uint32_t, bool)> &filter) {
    auto *caller_callee = new CallerCalleePage(parent);
    return {adapt(new TreePage(TreePage::Kind::TopDown, parent), activated, filter),
            adapt(new TreePage(TreePage::Kind::BottomUp, parent), activated, filter),
            adapt(caller_callee, caller_callee->functionsModel(), activated, filter),
            adapt(new HotspotsPage(parent), activated, filter)};
}

} // namespace cpcprof::gui
