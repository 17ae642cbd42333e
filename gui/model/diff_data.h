// SPDX-License-Identifier: MIT
// Two profiles compared for viewing, without Qt: NEW (the profile shown)
// against BASE, with `cpcprof diff`'s own Comparison (profiler/diff: the
// functions of both matched by (name, module basename), each common
// event's self and total on both sides) and, for the call trees, each
// node of NEW's top-down and bottom-up tree matched to the same call path
// in BASE's.  Shares are of each profile's own total and changes are in
// percentage points, as `cpcprof diff` gives them.  Immutable once made;
// shared between threads by pointer.
//
//   DiffPtr d = compare_profiles(base, now, &error);
//   DeltaInput in = d->node_delta(DiffData::TopDown, node);
//   d->points(in, d->common[event], true);   // the frame's self change, pp
#pragma once

#include "gui/model/profile_data.h"
#include "profiler/analysis/diff_model.h" // profiler/diff
#include "profiler/analysis/path_match.h"
#include "profiler/analysis/share_test.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::gui {

// A row's values on one side, per common event (Comparison::events);
// nullptr: the side does not have the row (its values are 0).
struct SideValues {
    const uint64_t *self = nullptr, *total = nullptr;
};

struct DeltaInput {
    SideValues base, now;
};

struct DiffData {
    enum Tree { TopDown, BottomUp };

    ProfilePtr base, now;
    analysis::Comparison comparison; // the numbers of `cpcprof diff BASE NEW`
    std::vector<int> common;         // per NEW event: index in comparison.events, -1: BASE lacks it
    std::vector<int> function_row;   // per NEW function: index in comparison.functions, -1: none
    // NEW's trees matched by call path in BASE's, over the common events
    // (Comparison::events); empty when a side has no such tree (bottom-up
    // too large).
    analysis::PathMatch top_down, bottom_up;
    // Per common event: indexes in comparison.functions in the order of
    // analysis::sort_by_change (cpcprof diff's table), made with the rest.
    std::vector<std::vector<size_t>> order;

    const analysis::PathMatch &match(Tree t) const { return t == TopDown ? top_down : bottom_up; }
    // The values of NEW's tree node and of the same call path in BASE
    // (both merged by path, as `cpcprof diff`'s flame graph merges them).
    DeltaInput node_delta(Tree t, uint32_t node) const;
    // The same for a node of a tree matched by match_function_tree.
    DeltaInput path_delta(const analysis::PathMatch &m, uint32_t node) const;
    // The values of NEW's function fn and of the same function in BASE.
    DeltaInput function_delta(uint32_t fn) const;
    DeltaInput row_delta(const analysis::FunctionDiff &f) const;

    // The share of a side's total of common event e (0 when the side lacks
    // the row); empty when the side's total is 0.
    std::optional<double> share(const SideValues &v, bool base_side, size_t e, bool self) const;
    // (new share - base share) * 100, as Comparison::points.
    std::optional<double> points(const DeltaInput &in, size_t e, bool self) const;
    // Whether that change is more than sampling noise (share_test.h, at
    // `confidence`); empty when a side's total is 0.
    std::optional<analysis::ShareTest> test(const DeltaInput &in, size_t e, bool self) const;
    double confidence = analysis::kDefaultConfidence;
    // new value - base value (as a double: counts reach 2^64).
    double count_change(const DeltaInput &in, size_t e, bool self) const;
    // Indexes in comparison.functions of the functions only BASE has,
    // largest self share of common event e first.
    std::vector<size_t> only_in_base(size_t e) const;
};

using DiffPtr = std::shared_ptr<const DiffData>;

// A callers (callers = true) or callees tree of NEW's function fn matched
// by call path to the same tree of BASE's function of the same name and
// module basename (built now, O(BASE's frame nodes)); not built when BASE
// has no such function or its tree is too large (analysis::TooLarge).
analysis::PathMatch match_function_tree(const DiffData &d, const analysis::CallTree &now_tree,
                                        uint32_t fn, bool callers);

// The delta columns trees and tables add when comparing: per common event
// (in NEW's order) the change of the self and total share in points, then
// of the self and total count.
struct DeltaColumn {
    int event = 0;      // index in NEW's Query::events()
    size_t common = 0;  // index in Comparison::events
    bool self = true;   // self or total
    bool share = true;  // share (points) or count
    std::string header; // "Δself:cycles pp", "Δtotal:cycles"
};

std::vector<DeltaColumn> delta_columns(const DiffData &d);
// The column's figure for a row: points (empty when a total is 0) or count.
std::optional<double> delta_value(const DiffData &d, const DeltaColumn &col, const DeltaInput &in);

// Compares now against base.  nullptr with *error naming the problem when
// the two have no event in common.  Any thread; no Qt.
DiffPtr compare_profiles(const ProfilePtr &base, const ProfilePtr &now, std::string *error);

} // namespace cpcprof::gui
