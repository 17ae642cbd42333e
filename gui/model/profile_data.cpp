// SPDX-License-Identifier: MIT
#include "gui/model/profile_data.h"

#include <strings.h>

#include <algorithm>
#include <future>

namespace cpcprof::gui {

namespace {

struct Dispose {
    Disposer dispose;
    void operator()(ProfileData *p) const {
        if (dispose)
            dispose(p);
        else
            delete p;
    }
};

} // namespace

std::shared_ptr<ProfileData> new_profile_data(Disposer dispose) {
    return std::shared_ptr<ProfileData>(new ProfileData, Dispose{std::move(dispose)});
}

Disposer disposer_of(const ProfilePtr &p) {
    const Dispose *d = std::get_deleter<Dispose>(p);
    return d ? d->dispose : Disposer{};
}

ProfilePtr load_profile(const std::string &path, const std::atomic<bool> &cancel,
                        std::string *error, Disposer dispose) {
    auto data = new_profile_data(std::move(dispose));
    data->path = path;
    analysis::QueryOptions options;
    options.keep_samples = true;
    data->query = analysis::Query::open(path, {}, error, options);
    if (!data->query)
        return nullptr;
    // Beside the views' two lanes (the machine may have more cores).
    auto names = std::async(std::launch::async, [&] { return name_ranks(*data->query); });
    bool built = build_views(*data, cancel, error);
    data->name_rank = names.get();
    return built ? data : nullptr;
}

bool build_views(ProfileData &data, const std::atomic<bool> &cancel, std::string *error) {
    if (cancel) {
        *error = "cancelled";
        return false;
    }
    // Two lanes, each reading the Query alone: the bottom-up tree, the
    // largest (225,001 nodes for the synthetic 1 M-sample profile), on a
    // thread of its own; the top-down tree and the hotspot rows here.
    auto bottom_up = std::async(std::launch::async, [&] {
        if (cancel)
            return;
        try {
            data.bottom_up = analysis::CallTree::bottom_up(*data.query, true);
            data.bottom_up_order = tree_order(*data.bottom_up, CostKind::total);
        } catch (const analysis::TooLarge &e) {
            data.bottom_up_error = e.what();
        }
    });
    data.top_down = analysis::CallTree::top_down(*data.query, true);
    data.top_down_order = tree_order(*data.top_down, CostKind::total);
    if (!cancel) {
        data.hotspots = analysis::hotspot_rows(*data.query, analysis::GroupBy::function);
        data.hotspots_by_self = table_order(*data.hotspots, CostKind::self);
        data.hotspots_by_total = table_order(*data.hotspots, CostKind::total);
    }
    bottom_up.get();
    if (cancel) {
        *error = "cancelled";
        return false;
    }
    return true;
}

std::vector<uint32_t> name_ranks(const analysis::Query &q) {
    const auto &fns = q.functions();
    std::vector<uint32_t> order(fns.size());
    for (uint32_t f = 0; f < order.size(); ++f)
        order[f] = f;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        int c = strcasecmp(fns[a].name.c_str(), fns[b].name.c_str());
        return c != 0 ? c < 0 : a < b;
    });
    std::vector<uint32_t> rank(fns.size(), 0);
    for (uint32_t r = 0; r < order.size(); ++r)
        rank[order[r]] = r;
    return rank;
}

} // namespace cpcprof::gui
