// SPDX-License-Identifier: MIT
#include "gui/model/profile_data.h"

namespace cpcprof::gui {

ProfilePtr load_profile(const std::string &path, const std::atomic<bool> &cancel,
                        std::string *error) {
    auto data = std::make_shared<ProfileData>();
    data->path = path;
    analysis::QueryOptions options;
    options.keep_samples = true;
    data->query = analysis::Query::open(path, {}, error, options);
    if (!data->query)
        return nullptr;
    if (!build_views(*data, cancel, error))
        return nullptr;
    return data;
}

bool build_views(ProfileData &data, const std::atomic<bool> &cancel, std::string *error) {
    auto cancelled = [&] {
        if (cancel)
            *error = "cancelled";
        return bool(cancel);
    };
    if (cancelled())
        return false;
    data.top_down = analysis::CallTree::top_down(*data.query, true);
    if (cancelled())
        return false;
    data.hotspots = analysis::hotspot_rows(*data.query, analysis::GroupBy::function);
    if (cancelled())
        return false;
    try {
        data.bottom_up = analysis::CallTree::bottom_up(*data.query, true);
    } catch (const analysis::TooLarge &e) {
        data.bottom_up_error = e.what();
    }
    return !cancelled();
}

} // namespace cpcprof::gui
