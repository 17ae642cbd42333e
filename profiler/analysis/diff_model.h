// SPDX-License-Identifier: MIT
// What `cpcprof diff` compares: two profiles' functions, matched by
// (name, module basename), with each common event's self and total cost
// on both sides.  Costs are compared as shares of each profile's own
// total, so runs of different lengths compare; per-second rates come from
// each run's duration.
#pragma once

#include "profiler/analysis/query.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::analysis {

// A function's cost on one side, per common event (Comparison::events):
// summed over the side's runs, and per run.
struct SideCost {
    bool present = false; // a profile of the side has the function at all
    uint64_t self_samples = 0, total_samples = 0;
    // Per common event: the observations its costs rest on
    // (Query::observations), for the tests of a change.
    std::vector<uint64_t> self_observations, total_observations;
    std::vector<uint64_t> self, total;
    // Per run of the side (SideInfo::runs) and common event e, at
    // [run * events + e]; 0 where that run lacks the function.
    std::vector<uint64_t> run_self, run_total;
};

// One function of either profile.  module is the basename of the module's
// path, so that /usr/lib/libfoo.so and /opt/x/lib/libfoo.so match; ""
// when no mapping held the address.
struct FunctionDiff {
    std::string name, module;
    SideCost base, now;

    // "new": only NEW has it; "gone": only BASE; "" both.
    const char *status() const;
};

// One profile reduced to the common events.
struct RunInfo {
    std::string file;
    uint64_t samples = 0;
    std::vector<uint64_t> totals;       // per common event: the kept samples' sum
    std::vector<uint64_t> observations; // per common event (Query::observations)
    std::optional<double> seconds;      // the time the kept samples cover; empty: unknown
};

// A side: one profile, or several runs of the same build.  file, samples,
// totals and seconds are the runs' together (file: the first run's; seconds
// empty when any run's is unknown).
struct SideInfo : RunInfo {
    std::vector<RunInfo> runs; // at least one
};

struct Comparison {
    std::vector<std::string> events; // in both profiles, in BASE's order
    std::vector<std::string> only_base, only_new;
    SideInfo base, now;
    std::vector<FunctionDiff> functions; // in no particular order

    // value / total of a side; empty when the side's total of event e is 0.
    std::optional<double> share(const SideInfo &side, const std::vector<uint64_t> &values,
                                size_t e) const;
    // The change of a function's self (or total) share of event e, in
    // percentage points (new share - base share) * 100; a side without the
    // function has share 0.  Empty when either side's total is 0.
    std::optional<double> points(const FunctionDiff &f, size_t e, bool self) const;
    // value / seconds of the side; empty when the duration is unknown.
    std::optional<double> per_second(const SideInfo &side, uint64_t value) const;
};

// Events of both (by name), the functions of both, their costs.
Comparison compare(const analysis::Query &base, const std::string &base_file,
                   const analysis::Query &now, const std::string &new_file);

// The same for several runs a side: the common events are those every
// profile has; each function's costs are summed over its side's runs and
// kept per run (SideCost::run_self).
struct ProfileRun {
    const analysis::Query *query = nullptr;
    std::string file;
};
Comparison compare_runs(const std::vector<ProfileRun> &base, const std::vector<ProfileRun> &now);

// Orders functions by how much their self share of event e changed (the
// largest change, up or down, first), then the total share's change, then
// by name.
void sort_by_change(const Comparison &c, size_t e, std::vector<const FunctionDiff *> *rows);

// The functions whose self share of event e grew by more than points,
// largest growth first.
std::vector<const FunctionDiff *> grown_above(const Comparison &c, size_t e, double points);

// Seconds the kept samples of q cover: the run's length (start to end),
// cut to the --time filter.  Empty when the run has no end (recorder
// stopped early).
std::optional<double> covered_seconds(const analysis::Query &q);

// The colour of a frame of a differential flame graph whose self share
// changed by points percentage points: red grew, blue shrank, grey
// unchanged.  The colour saturates at largest, the largest change in the
// picture, but no less than 1 point: a picture of noise stays pale.
struct Rgb {
    int r = 0, g = 0, b = 0;
};
Rgb change_colour(double points, double largest);

} // namespace cpcprof::analysis
