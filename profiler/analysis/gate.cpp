// SPDX-License-Identifier: MIT
#include "profiler/analysis/gate.h"

#include <algorithm>
#include <cmath>

namespace cpcprof::analysis {

const char *verdict_name(Verdict v) {
    switch (v) {
    case Verdict::grew:
        return "grew";
    case Verdict::shrank:
        return "shrank";
    case Verdict::regression:
        return "regression";
    case Verdict::noise:
        break;
    }
    return "noise";
}

const char *method_name(TestMethod m) {
    switch (m) {
    case TestMethod::poisson:
        return "Poisson z-test on one run a side";
    case TestMethod::welch:
        return "Welch's t-test over runs";
    case TestMethod::two_proportion:
        break;
    }
    return "two-proportion z-test on one run a side";
}

TestMethod method_for(const Comparison &c, Metric m) {
    if (c.base.runs.size() >= 2 && c.now.runs.size() >= 2)
        return TestMethod::welch;
    return m == Metric::share ? TestMethod::two_proportion : TestMethod::poisson;
}

namespace {

struct Values {
    std::vector<double> base, now; // per run: the share or the value
};

// Per run of each side, f's share of (metric share) or value of event e.
Values per_run(const Comparison &c, const FunctionDiff &f, size_t e, bool self, Metric m) {
    Values v;
    const size_t events = c.events.size();
    auto fill = [&](const SideInfo &side, const SideCost &cost, std::vector<double> *out) {
        const std::vector<uint64_t> &values = self ? cost.run_self : cost.run_total;
        for (size_t r = 0; r < side.runs.size(); ++r) {
            const size_t at = r * events + e;
            double x = at < values.size() ? double(values[at]) : 0.0;
            if (m == Metric::share)
                x = side.runs[r].totals[e] == 0 ? 0.0 : x / double(side.runs[r].totals[e]);
            out->push_back(x);
        }
    };
    fill(c.base, f.base, &v.base);
    fill(c.now, f.now, &v.now);
    return v;
}

// A side's mean total of e over its runs.
double mean_total(const SideInfo &side, size_t e) {
    double s = 0;
    for (const RunInfo &r : side.runs)
        s += double(r.totals[e]);
    return side.runs.empty() ? 0.0 : s / double(side.runs.size());
}

// The variance one run's value has from its samples alone, were both
// sides alike (their values pooled): p (1 - p) / samples for a share p of
// a run's samples; value^2 / samples for a cost summed over samples of
// about equal weight (a Poisson count scaled by its weight).
VarianceFloor sampling_floor(const Comparison &c, const Values &v, size_t e, Metric m) {
    double pooled = 0;
    for (const auto *side : {&v.base, &v.now})
        for (double x : *side)
            pooled += x;
    pooled /= double(v.base.size() + v.now.size());
    VarianceFloor f;
    for (auto [side, out] : {std::pair{&c.base, &f.base}, std::pair{&c.now, &f.now}}) {
        double samples = 0, total = 0;
        for (const RunInfo &r : side->runs) {
            samples += double(r.observations[e]);
            total += double(r.totals[e]);
        }
        if (samples == 0)
            continue;
        if (m == Metric::share) {
            const double p = std::clamp(pooled, 0.0, 1.0);
            *out = p * (1 - p) / (samples / double(side->runs.size()));
        } else {
            // A cost of about `pooled / weight` samples of `weight` each.
            *out = pooled * (total / samples);
        }
    }
    return f;
}

Verdict verdict_of(double points, bool significant, const std::optional<double> &threshold) {
    if (!significant || points == 0)
        return Verdict::noise;
    if (points < 0)
        return Verdict::shrank;
    return threshold && points > *threshold ? Verdict::regression : Verdict::grew;
}

// One run a side, metric time: each side's value is a sum of samples of
// (about) equal weight, a Poisson count scaled by its weight, so its
// variance is value^2 / samples.
Judgement poisson_change(double base, uint64_t base_samples, double now, uint64_t now_samples,
                         double scale, double confidence) {
    Judgement j;
    j.method = TestMethod::poisson;
    auto variance = [](double value, uint64_t samples) {
        return samples == 0 ? 0.0 : value * value / double(samples);
    };
    const double diff = now - base;
    const double se = std::sqrt(variance(base, base_samples) + variance(now, now_samples));
    j.points = diff * scale;
    if (se == 0) {
        j.low = j.high = j.points;
        j.p_value = diff == 0 ? 1 : 0;
        return j;
    }
    const double q = normal_quantile(1 - (1 - confidence) / 2);
    j.low = (diff - q * se) * scale;
    j.high = (diff + q * se) * scale;
    j.p_value = std::erfc(std::fabs(diff / se) / std::sqrt(2.0));
    return j;
}

} // namespace

std::optional<Judgement> judge(const Comparison &c, const FunctionDiff &f, size_t e, bool self,
                               const GateOptions &o) {
    if (e >= c.events.size() || c.base.totals[e] == 0 || c.now.totals[e] == 0)
        return std::nullopt;
    Judgement j;
    const TestMethod method = method_for(c, o.metric);
    // Points per unit of the compared values: shares are fractions; times
    // are stated as a part of the base's mean total.
    const double base_total = mean_total(c.base, e);
    const double scale = o.metric == Metric::share ? 100.0 : 100.0 / base_total;
    if (method == TestMethod::welch) {
        Values v = per_run(c, f, e, self, o.metric);
        RunsTest t =
            test_runs_change(v.base, v.now, o.confidence, sampling_floor(c, v, e, o.metric));
        j.method = TestMethod::welch;
        j.points = t.change * scale;
        j.low = t.low * scale;
        j.high = t.high * scale;
        j.p_value = t.p_value;
    } else if (method == TestMethod::two_proportion) {
        // The runs of a side pooled: their samples are one sample.
        const SideCost &b = f.base, &n = f.now;
        const double bs = double((self ? b.self : b.total)[e]) / double(c.base.totals[e]);
        const double ns = double((self ? n.self : n.total)[e]) / double(c.now.totals[e]);
        ShareTest t =
            test_share_change(bs, c.base.observations[e], ns, c.now.observations[e], o.confidence);
        j.points = t.change * 100;
        j.low = t.low * 100;
        j.high = t.high * 100;
        j.p_value = t.p_value;
    } else {
        // Means per run, so that 1 base run against 3 new compares like
        // with like: a mean of k runs is their sum / k, of variance
        // sum^2 / (samples k^2) = mean^2 / samples.
        const size_t kb = c.base.runs.size(), kn = c.now.runs.size();
        const double bv = double((self ? f.base.self : f.base.total)[e]);
        const double nv = double((self ? f.now.self : f.now.total)[e]);
        const uint64_t bsamples = (self ? f.base.self_observations : f.base.total_observations)[e];
        const uint64_t nsamples = (self ? f.now.self_observations : f.now.total_observations)[e];
        j = poisson_change(bv / double(kb), bsamples, nv / double(kn), nsamples, scale,
                           o.confidence);
    }
    j.verdict = verdict_of(j.points, j.p_value < 1 - o.confidence, o.threshold);
    return j;
}

std::vector<Regression> regressions(const Comparison &c, size_t e, const GateOptions &o) {
    std::vector<Regression> out;
    if (!o.threshold)
        return out;
    for (const FunctionDiff &f : c.functions) {
        auto j = judge(c, f, e, true, o);
        if (j && j->verdict == Verdict::regression)
            out.push_back({&f, *j});
    }
    std::stable_sort(out.begin(), out.end(), [](const Regression &a, const Regression &b) {
        if (a.judgement.points != b.judgement.points)
            return a.judgement.points > b.judgement.points;
        return a.function->name < b.function->name;
    });
    return out;
}

std::optional<PaceChange> pace_change(const Comparison &c, size_t e) {
    auto mean = [e](const SideInfo &s) {
        double sum = 0;
        for (const RunInfo &r : s.runs)
            sum += e < r.totals.size() ? double(r.totals[e]) : 0;
        return s.runs.empty() ? 0.0 : sum / double(s.runs.size());
    };
    double base_mean = mean(c.base), new_mean = mean(c.now);
    if (base_mean <= 0 || std::fabs(new_mean - base_mean) <= 0.1 * base_mean)
        return std::nullopt;
    return PaceChange{base_mean, new_mean};
}

} // namespace cpcprof::analysis
