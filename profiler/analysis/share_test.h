// SPDX-License-Identifier: MIT
// Whether the change of a share between two runs is more than sampling
// noise: the two-proportion z-test on the runs' sample counts.  A share p
// of n samples is a count of hits; between runs A and B
//
//     z = (pB - pA) / sqrt(p (1 - p) (1/nA + 1/nB)),  p = (pA nA + pB nB) / (nA + nB)
//
// (the pooled test; two-sided p-value erfc(|z| / sqrt 2)), and the change's
// confidence interval is (pB - pA) +- q sqrt(pA (1 - pA) / nA + pB (1 - pB) / nB)
// with q the normal quantile of the confidence (2.576 at 99 %).  Shares of
// an event's value are taken as shares of the samples that carry it (exact
// for a fixed-period event, an approximation for counted ones).  The
// viewer's comparison and `cpcprof diff` colour and gate by this one test.
//
// With several runs a side, what the runs measured varies more than the
// samples of one run say (the machine, the scheduler, the program's own
// variation): Welch's t-test on the runs' values (test_runs_change) takes
// that spread from the runs themselves.
#pragma once

#include <cstdint>
#include <span>

namespace cpcprof::analysis {

inline constexpr double kDefaultConfidence = 0.99;

struct ShareTest {
    double change = 0; // new share - base share, in [-1, 1]
    double low = 0;    // the change's confidence interval
    double high = 0;
    double p_value = 1;       // two-sided; 1 when a side has no samples
    bool significant = false; // p_value < 1 - confidence
};

// base_share, new_share in [0, 1]; confidence in (0, 1).  With no samples
// on a side nothing is significant and the interval is [-1, 1].
ShareTest test_share_change(double base_share, uint64_t base_samples, double new_share,
                            uint64_t new_samples, double confidence = kDefaultConfidence);

// Welch's t-test of mean(now) - mean(base), each run's value one
// observation (a share, or a time): t = d / se with se^2 = sA^2 / nA +
// sB^2 / nB, Welch-Satterthwaite degrees of freedom, two-sided p-value
// from Student's t, interval d +- t_q(df) se.  A side's variance is its
// runs' sample variance, but never less than `floor` (the variance one
// run's value has from its samples alone): two or three runs that happen
// to agree, or a function seen once in every run, would otherwise read as
// certain.  Needs two runs a side or more; with fewer nothing is
// significant and the interval is unbounded.  When nothing varies at all
// (se = 0), a difference of the means is significant and none is not.
struct RunsTest {
    double change = 0; // mean(now) - mean(base)
    double low = 0, high = 0;
    double p_value = 1;
    double df = 0; // Welch-Satterthwaite degrees of freedom
    bool significant = false;
};
struct VarianceFloor {
    double base = 0, now = 0;
};
RunsTest test_runs_change(std::span<const double> base, std::span<const double> now,
                          double confidence = kDefaultConfidence, VarianceFloor floor = {});

// The standard normal quantile: P(Z <= x) = p, p in (0, 1).
double normal_quantile(double p);
// Student's t with df > 0 degrees of freedom (df need not be whole):
// P(T <= x), and the x with P(T <= x) = p, p in (0, 1).
double student_t_cdf(double x, double df);
double student_t_quantile(double p, double df);

} // namespace cpcprof::analysis
