// SPDX-License-Identifier: MIT
#include "profiler/analysis/share_test.h"

#include <algorithm>
#include <cmath>

namespace cpcprof::analysis {

double normal_quantile(double p) {
    // Bisection on the normal CDF, 0.5 erfc(-x / sqrt 2): exact to the
    // double's precision over the range any confidence asks for.
    p = std::clamp(p, 1e-300, 1 - 1e-16);
    double lo = -40, hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
        double mid = (lo + hi) / 2;
        if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

ShareTest test_share_change(double base_share, uint64_t base_samples, double new_share,
                            uint64_t new_samples, double confidence) {
    ShareTest t;
    const double pa = std::clamp(base_share, 0.0, 1.0), pb = std::clamp(new_share, 0.0, 1.0);
    t.change = pb - pa;
    if (base_samples == 0 || new_samples == 0) {
        t.low = -1;
        t.high = 1;
        return t;
    }
    const double na = double(base_samples), nb = double(new_samples);
    const double q = normal_quantile(1 - (1 - confidence) / 2);
    const double se = std::sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb);
    t.low = t.change - q * se;
    t.high = t.change + q * se;
    const double pooled = (pa * na + pb * nb) / (na + nb);
    const double se0 = std::sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb));
    if (se0 == 0) {
        // Both shares 0 or both 1: no change at all.
        t.p_value = t.change == 0 ? 1 : 0;
    } else {
        t.p_value = std::erfc(std::fabs(t.change / se0) / std::sqrt(2.0));
    }
    t.significant = t.p_value < 1 - confidence;
    return t;
}

} // namespace cpcprof::analysis
