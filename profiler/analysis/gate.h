// SPDX-License-Identifier: MIT
// The CI gate's judgement of a comparison (diff_model.h): for each
// function, how much its cost changed, the confidence interval of that
// change, whether it is more than noise, and whether it is a regression.
// `cpcprof diff` and the viewer's comparison both judge by this.
//
// What is compared (Metric):
//   share  the function's share of each run's own total of the event, so
//          runs of different lengths compare;
//   time   its cost itself: CPU time for the clock events, counts for the
//          others; for runs that did the same work.  A change is stated in
//          points of the base's mean total, so that a threshold reads alike
//          for both metrics ("grew by 5 % of the run").
// How noise is told from a change (share_test.h):
//   one run on either side  the samples' own noise: a two-proportion
//                           z-test for shares; for times, the counts'
//                           Poisson noise (variance value^2 / samples)
//   several runs each side  Welch's t-test over the runs' values, which
//                           measures the run-to-run spread itself.
// A change is a regression when it grew by more than the threshold and the
// test says it is unlikely to be noise at the confidence (default 99 %).
#pragma once

#include "profiler/analysis/diff_model.h"
#include "profiler/analysis/share_test.h"

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::analysis {

enum class Metric { share, time };

enum class Verdict {
    noise,      // not significant at the confidence
    grew,       // significant growth, not above the threshold (or no threshold)
    shrank,     // significant decrease
    regression, // significant growth above the threshold
};
const char *verdict_name(Verdict v); // "noise", "grew", "shrank", "regression"

enum class TestMethod { two_proportion, poisson, welch };
const char *method_name(TestMethod m); // as the docs name them
// The test judge() uses on c: Welch's with two runs a side or more.
TestMethod method_for(const Comparison &c, Metric m);

struct Judgement {
    double points = 0;        // the change, in percentage points
    double low = 0, high = 0; // its confidence interval, points (may be infinite)
    double p_value = 1;
    TestMethod method = TestMethod::two_proportion;
    Verdict verdict = Verdict::noise;
};

struct GateOptions {
    Metric metric = Metric::share;
    double confidence = kDefaultConfidence;
    std::optional<double> threshold; // points; empty: no gate, verdicts only
};

// How f's self (or total) cost of common event e changed.  Empty when a
// side's total of e is 0 (no shares to take).
std::optional<Judgement> judge(const Comparison &c, const FunctionDiff &f, size_t e, bool self,
                               const GateOptions &o);

struct Regression {
    const FunctionDiff *function = nullptr;
    Judgement judgement;
};
// The functions whose self cost of e is a regression under o, the largest
// growth first (o.threshold must be set).
std::vector<Regression> regressions(const Comparison &c, size_t e, const GateOptions &o);

// Whether the two sides' runs went at different paces: the mean per run
// of event e's total (for cpu-clock, the run's CPU time) differs by more
// than 10 % between the sides.  A note, not a verdict: three runs cannot
// test it, and it matters whatever the test says.  Runs of the same work
// that took different times ran on a machine of another speed (a busier
// host, shared caches): the shares of code whose speed depends on the
// machine (memory-bound loops) move with it, and a share gate cannot tell
// that from a change of the program.  (Or the work itself changed.)
struct PaceChange {
    double base_mean = 0, new_mean = 0; // per run, in e's unit
};
std::optional<PaceChange> pace_change(const Comparison &c, size_t e);

} // namespace cpcprof::analysis
