// SPDX-License-Identifier: MIT
// The viewer's filter stack, without Qt: steps that each keep a part of
// the samples (a time range, some threads, one process, all but some
// threads, the stacks through a function or not through it), applied
// together (a sample is shown when every step keeps
// it), and the profile narrowed to them: a ProfileData whose Query is the
// loaded one's Query::subset, so every view shows the numbers
// `cpcprof report --pid/--tid/--time` gives for the same samples.
//
//   FilterStep s;
//   s.time = TimeRange{250'000'000, 500'000'000};      // [0.25 s, 0.5 s)
//   ProfilePtr shown = filter_profile(loaded, {s}, cancel, &error);
#pragma once

#include "gui/model/profile_data.h"

#include <atomic>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cpcprof::gui {

struct ThreadId {
    int pid = 0, tid = 0;
    auto operator<=>(const ThreadId &) const = default;
};

// Sample times in ns since the run's start: [from_ns, to_ns).
struct TimeRange {
    int64_t from_ns = 0, to_ns = 0;
    bool operator==(const TimeRange &) const = default;
};

// One step: a sample passes when it meets every part that is set.
struct FilterStep {
    std::optional<TimeRange> time;
    std::optional<int> pid;        // only this process
    std::vector<ThreadId> only;    // only these threads (empty: any)
    std::vector<ThreadId> without; // not these threads
    std::vector<int> cpus;         // only the samples taken on these processors (empty: any)
    // Only stacks with a frame of each function named here / with none of
    // these (exact names, any module): `cpcprof report --through F
    // --not-through G`.
    std::vector<std::string> through, not_through;
    bool operator==(const FilterStep &) const = default;
};

// "0.250-0.500 s", "only process 1234", "only thread 1235", "without
// threads 1235, 1236", "only CPU 1", "through f", "not through g": its
// parts joined by ", ".
std::string describe(const FilterStep &step);

// The command-line filter that keeps the same samples as steps, when
// there is one (--pid, --tid, --cpu, --time, --through, --not-through:
// one process, one thread, one processor, the intersection of the time
// ranges, every function test); nullopt when steps need more (two
// threads, a thread left out, two processors).  An empty intersection of ranges gives
// from == to, which keeps nothing (as no --time does).
std::optional<analysis::QueryFilter> as_query_filter(const std::vector<FilterStep> &steps);

// Whether kept sample i of q passes every step: per (stack, thread) pair
// a yes/no, then a time test per sample, so that keeps(i) is O(1).
class SampleTest {
  public:
    SampleTest(const analysis::Query &q, const std::vector<FilterStep> &steps);
    bool keeps(size_t i) const;

  private:
    const analysis::Query &q_;
    std::vector<uint8_t> pair_ok_;
    int64_t from_ns_ = INT64_MIN, to_ns_ = INT64_MAX;
    bool by_cpu_ = false;     // some step keeps only some processors
    std::vector<int> cpu_ok_; // those every such step keeps, sorted
};

// The profile of loaded's samples that pass every step, with its trees
// and hotspot rows (as load_profile makes them), off the GUI thread:
// O(samples + the trees).  loaded must come from load_profile (it keeps
// its samples).  nullptr with *error = "cancelled" when cancel became
// true between two steps, or naming the problem.
ProfilePtr filter_profile(const ProfilePtr &loaded, const std::vector<FilterStep> &steps,
                          const std::atomic<bool> &cancel, std::string *error);

} // namespace cpcprof::gui
