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
#pragma once

#include <cstdint>

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

// The standard normal quantile: P(Z <= x) = p, p in (0, 1).
double normal_quantile(double p);

} // namespace cpcprof::analysis
