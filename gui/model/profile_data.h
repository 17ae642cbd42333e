// SPDX-License-Identifier: MIT
// A profile loaded for viewing: the Query and the trees every view starts
// from, built once off the GUI thread and immutable afterwards, so that
// views on any thread read it through a shared pointer without locks.
#pragma once

#include "gui/model/row_order.h"
#include "profiler/analysis/hotspots.h"
#include "profiler/analysis/query.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace cpcprof::gui {

struct ProfileData {
    std::string path;
    std::unique_ptr<analysis::Query> query;
    // Stacks cut short sit under one "[truncated]" root (Query's
    // truncated_function()), as in the flame graph of `cpcprof flamegraph`.
    std::optional<analysis::CallTree> top_down;
    // Empty when too large to build (analysis::TooLarge): bottom_up_error
    // says what was asked and how big it would have been.
    std::optional<analysis::CallTree> bottom_up;
    std::string bottom_up_error;
    // The rows of the hotspot table (hotspot_rows), made with the trees so
    // that pages do not make them on the GUI thread; nothing in a
    // ProfileData made by other means (pages then make them).
    std::optional<std::vector<analysis::HotspotRow>> hotspots;
    // The orders the pages first show these in (row_order.h), made with
    // them: the trees' children by total, the hotspot rows by self and by
    // total, of the first event.
    std::optional<RowOrder> top_down_order, bottom_up_order, hotspots_by_self, hotspots_by_total;
    // Per function, its rank by name (case-insensitive, then index): the
    // order of a sort on the Function column, made by load_profile; empty
    // in a ProfileData made by other means (a model sorted by name then
    // makes it).
    std::vector<uint32_t> name_rank;
};

using ProfilePtr = std::shared_ptr<const ProfileData>;

// Frees a profile where its last reference goes.  Freeing a 1 M-sample
// profile's Query and trees takes about 100 ms, which the viewer does not
// spend on its GUI thread: its disposer hands the profile to a worker.
// Empty: deleted at once.
using Disposer = std::function<void(ProfileData *)>;
// A new, empty ProfileData that dispose frees.
std::shared_ptr<ProfileData> new_profile_data(Disposer dispose);
// The disposer p was made with (empty for one made otherwise), for the
// profiles made from it.
Disposer disposer_of(const ProfilePtr &p);

// Opens path through storage's defensive opening path and builds the
// trees.  nullptr with *error naming the problem ("PATH: reason") when the
// file is refused, and with *error = "cancelled" when cancel became true
// between two steps.  The Query keeps its samples (QueryOptions), for the
// timeline and filters (sample_filter.h).  Any thread; no Qt.
ProfilePtr load_profile(const std::string &path, const std::atomic<bool> &cancel,
                        std::string *error, Disposer dispose = {});

// Builds data's trees and hotspot rows from data.query, as load_profile
// does, on two threads (Query is immutable: readers on several threads
// are fine).  false with *error = "cancelled" when cancel became true
// between two steps.
bool build_views(ProfileData &data, const std::atomic<bool> &cancel, std::string *error);

// ProfileData::name_rank of q's functions.
std::vector<uint32_t> name_ranks(const analysis::Query &q);

} // namespace cpcprof::gui
