// SPDX-License-Identifier: MIT
// The timeline's data, without Qt: one row per process and, below it, one
// per thread that kept samples; then, where the profile says which
// processor took each sample (format 5 on), one row per processor that
// took any; and the density of a chosen event over the run, per row, in
// equal time slices.  Built from the loaded (whole) profile's kept samples
// (QueryOptions::keep_samples).
//
//   Timeline t = make_timeline(*profile->query);
//   auto bins = t.density(*profile->query, event, 800); // per row
#pragma once

#include "gui/model/sample_filter.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cpcprof::gui {

struct TimelineRow {
    bool process = false; // a process's row (the sum of its threads)
    ThreadId id;          // tid 0 for a process row; {0, 0} for a processor's
    std::string label;    // "1234 cpcprof-demo", "worker (1235)", "CPU 1"
    uint32_t thread = 0;  // Query::threads() index of a thread row
    int cpu = -1;         // a processor's row: its number; -1 for the others
    analysis::Cost cost;  // its kept samples' cost

    bool is_thread() const { return !process && cpu < 0; }
};

struct Timeline {
    // Samples lie in [0, duration_ns): the run's end (or the last sample).
    int64_t duration_ns = 1;
    // Processes by pid, each followed by its threads in order of first
    // sample; then the processors by number.
    std::vector<TimelineRow> rows;

    // The whole run, [0, duration_ns).
    TimeRange whole() const { return {0, duration_ns}; }
    // Per row, per slice of the window (the whole run unless given) cut
    // into bins equal slices, the sum of event's values of the row's
    // samples in it; samples outside the window are left out.  A stretch
    // off the CPU (record --off-cpu) is no instant: its value is shared
    // among the slices its time spans, in proportion, and only its part
    // inside the window counts.
    std::vector<std::vector<uint64_t>> density(const analysis::Query &q, int event,
                                               size_t bins) const;
    std::vector<std::vector<uint64_t>> density(const analysis::Query &q, int event, size_t bins,
                                               TimeRange window) const;
    // The slice of time t among bins over the window (clamped to the first
    // and last).
    size_t bin_of(int64_t t, size_t bins) const { return bin_of(t, bins, whole()); }
    size_t bin_of(int64_t t, size_t bins, TimeRange window) const;
    // The start time of slice b among bins over the window.
    int64_t time_of_bin(double b, size_t bins) const { return time_of_bin(b, bins, whole()); }
    int64_t time_of_bin(double b, size_t bins, TimeRange window) const;

  private:
    // value over the slices of [start, start + duration_ns) in window.
    void spread(int64_t start, uint64_t duration_ns, uint64_t value, TimeRange window,
                std::vector<uint64_t> *row, std::vector<uint64_t> *process_row) const;
};

Timeline make_timeline(const analysis::Query &q);

} // namespace cpcprof::gui
