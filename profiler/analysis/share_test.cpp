// SPDX-License-Identifier: MIT
#include "profiler/analysis/share_test.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

namespace {

// The regularized incomplete beta function I_x(a, b) by its continued
// fraction (modified Lentz), taken on the side where it converges fast.
double incomplete_beta(double x, double a, double b) {
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    if (x > (a + 1) / (a + b + 2))
        return 1 - incomplete_beta(1 - x, b, a);
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                  a * std::log(x) + b * std::log1p(-x));
    constexpr double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (std::fabs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 300; ++m) {
        for (int half = 0; half < 2; ++half) {
            double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1 + num * d;
            d = 1 / (std::fabs(d) < tiny ? tiny : d);
            c = 1 + num / c;
            c = std::fabs(c) < tiny ? tiny : c;
            f *= c * d;
        }
        if (std::fabs(c * d - 1) < 1e-15)
            break;
    }
    return front * f / a;
}

double mean(std::span<const double> v) {
    double s = 0;
    for (double x : v)
        s += x;
    return s / double(v.size());
}

double sample_variance(std::span<const double> v, double m) {
    double s = 0;
    for (double x : v)
        s += (x - m) * (x - m);
    return s / double(v.size() - 1);
}

} // namespace

double student_t_cdf(double x, double df) {
    const double tail = 0.5 * incomplete_beta(df / (df + x * x), df / 2, 0.5);
    return x >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double df) {
    p = std::clamp(p, 1e-300, 1 - 1e-16);
    double lo = -1, hi = 1;
    while (student_t_cdf(lo, df) > p && lo > -1e12)
        lo *= 2;
    while (student_t_cdf(hi, df) < p && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(lo)); ++i) {
        double mid = (lo + hi) / 2;
        if (student_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

RunsTest test_runs_change(std::span<const double> base, std::span<const double> now,
                          double confidence, VarianceFloor floor) {
    RunsTest t;
    if (base.empty() || now.empty())
        return t;
    const double ma = mean(base), mb = mean(now);
    t.change = mb - ma;
    if (base.size() < 2 || now.size() < 2) {
        t.low = -std::numeric_limits<double>::infinity();
        t.high = std::numeric_limits<double>::infinity();
        return t;
    }
    const double va = std::max(sample_variance(base, ma), floor.base) / double(base.size());
    const double vb = std::max(sample_variance(now, mb), floor.now) / double(now.size());
    const double se = std::sqrt(va + vb);
    if (se == 0) {
        t.low = t.high = t.change;
        t.df = double(base.size() + now.size() - 2);
        t.p_value = t.change == 0 ? 1 : 0;
        t.significant = t.change != 0;
        return t;
    }
    t.df = (va + vb) * (va + vb) /
           (va * va / double(base.size() - 1) + vb * vb / double(now.size() - 1));
    const double q = student_t_quantile(1 - (1 - confidence) / 2, t.df);
    t.low = t.change - q * se;
    t.high = t.change + q * se;
    t.p_value = 2 * (1 - student_t_cdf(std::fabs(t.change) / se, t.df));
    t.significant = t.p_value < 1 - confidence;
    return t;
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
