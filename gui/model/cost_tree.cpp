// SPDX-License-Identifier: MIT
#include "gui/model/cost_tree.h"

namespace cpcprof::gui {

using analysis::CallTree;

namespace {

CostTree make(const ProfilePtr &profile, std::shared_ptr<const CallTree> tree) {
    CostTree t;
    t.profile = profile;
    t.tree = std::move(tree);
    return t;
}

CostTree failed(const ProfilePtr &profile, std::string error) {
    CostTree t;
    t.profile = profile;
    t.error = std::move(error);
    return t;
}

template <typename Build> CostTree built(const ProfilePtr &profile, uint32_t fn, Build build) {
    if (!profile || !profile->query)
        return failed(profile, "no profile");
    if (fn >= profile->query->functions().size())
        return failed(profile, "no function " + std::to_string(fn));
    try {
        return make(profile, std::make_shared<const CallTree>(build(*profile->query, fn)));
    } catch (const analysis::TooLarge &e) {
        return failed(profile, e.what());
    }
}

} // namespace

const std::string &CostTree::name(uint32_t n) const {
    return profile->query->functions()[node(n).function].name;
}

CostTree top_down_tree(const ProfilePtr &profile) {
    if (!profile || !profile->top_down)
        return failed(profile, "no profile");
    // Aliasing: the tree lives as long as the profile that holds it.
    return make(profile, std::shared_ptr<const CallTree>(profile, &*profile->top_down));
}

CostTree collapsed_top_down_tree(const ProfilePtr &profile) {
    if (!profile || !profile->query)
        return failed(profile, "no profile");
    return make(profile,
                std::make_shared<const CallTree>(CallTree::top_down(*profile->query, true, true)));
}

CostTree bottom_up_tree(const ProfilePtr &profile) {
    if (!profile)
        return failed(profile, "no profile");
    if (!profile->bottom_up)
        return failed(profile, profile->bottom_up_error);
    return make(profile, std::shared_ptr<const CallTree>(profile, &*profile->bottom_up));
}

CostTree callers_tree(const ProfilePtr &profile, uint32_t fn) {
    return built(profile, fn, CallTree::callers);
}

CostTree callees_tree(const ProfilePtr &profile, uint32_t fn) {
    return built(profile, fn, CallTree::callees);
}

uint32_t heaviest_node(const CostTree &t, uint32_t fn) {
    uint32_t best = 0;
    for (uint32_t n = 1; n < t.size(); ++n)
        if (t.node(n).function == fn &&
            (best == 0 || t.node(n).total.samples > t.node(best).total.samples))
            best = n;
    return best;
}

std::vector<uint32_t> path_to(const CostTree &t, uint32_t n) {
    std::vector<uint32_t> path;
    for (; n != 0 && n < t.size(); n = t.node(n).parent)
        path.push_back(n);
    return {path.rbegin(), path.rend()};
}

} // namespace cpcprof::gui
