#include "model/profile_data.h"

namespace cpcprof::gui {

ProfilePtr load_profile(const std::string &path, const std::atomic<bool> &cancel,
                        std::string *error) {
    auto data = std::make_shared<ProfileData>();
    data->path = path;
    data->query = storage::Query::open(path, {}, error);
    if (!data->query)
        return nullptr;
    if (cancel) {
        *error = "cancelled";
        return nullptr;
    }
    data->top_down = storage::CallTree::top_down(*data->query, true);
    if (cancel) {
        *error = "cancelled";
        return nullptr;
    }
    data->hotspots = hotspot_rows(*data->query);
    if (cancel) {
        *error = "cancelled";
        return nullptr;
    }
    try {
        data->bottom_up = storage::CallTree::bottom_up(*data->query, true);
    } catch (const storage::TooLarge &e) {
        data->bottom_up_error = e.what();
    }
    if (cancel) {
        *error = "cancelled";
        return nullptr;
    }
    return data;
}

} // namespace cpcprof::gui
