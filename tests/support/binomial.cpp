// SPDX-License-Identifier: MIT
#include "tests/support/binomial.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cpcprof::test {

namespace {

// log P(X = k) for X ~ Binomial(n, p), 0 < p < 1.
double log_pmf(uint64_t n, double p, uint64_t k) {
    double dn = double(n), dk = double(k);
    return std::lgamma(dn + 1) - std::lgamma(dk + 1) - std::lgamma(dn - dk + 1) + dk * std::log(p) +
           (dn - dk) * std::log1p(-p);
}

void check(double p, double tail) {
    if (!(p >= 0 && p <= 1))
        throw std::invalid_argument("binomial bound: p = " + std::to_string(p));
    if (!(tail > 0 && tail < 0.5))
        throw std::invalid_argument("binomial bound: tail = " + std::to_string(tail));
}

} // namespace

uint64_t binomial_lower_bound(uint64_t n, double p, double tail) {
    check(p, tail);
    if (p == 0)
        return 0;
    if (p == 1)
        return n;
    // Sum P(X = k) upwards from 0 while P(X <= k) stays within the tail;
    // the terms below the mode grow, so nothing is lost to underflow that
    // could matter at this tail.
    double below = 0; // P(X < k)
    uint64_t k = 0;
    while (k <= n) {
        double next = below + std::exp(log_pmf(n, p, k));
        if (next > tail)
            break;
        below = next;
        ++k;
    }
    return std::min(k, n);
}

uint64_t binomial_upper_bound(uint64_t n, double p, double tail) {
    check(p, tail);
    // X > k for Binomial(n, p) is n - X < n - k for Binomial(n, 1 - p).
    return n - binomial_lower_bound(n, 1 - p, tail);
}

double binomial_rate_lower_bound(uint64_t k, uint64_t n, double tail) {
    check(0, tail);
    if (k == 0 || n == 0)
        return 0;
    k = std::min(k, n);
    // P(X >= k) grows with p: bisect for the p where it reaches tail, i.e.
    // where binomial_upper_bound(n, p) reaches k.
    double lo = 0, hi = 1;
    for (int i = 0; i < 60; ++i) {
        double mid = (lo + hi) / 2;
        (binomial_upper_bound(n, mid, tail) >= k ? hi : lo) = mid;
    }
    return lo;
}

std::string binomial_story(uint64_t k, uint64_t n, double p, double tail) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "%llu of %llu (%.2f %%, expected %.2f %%: Binomial(%llu, %.4f) lies in "
                  "[%llu, %llu] but for %g of runs on each side)",
                  (unsigned long long)k, (unsigned long long)n,
                  n ? 100.0 * double(k) / double(n) : 0.0, 100 * p, (unsigned long long)n, p,
                  (unsigned long long)binomial_lower_bound(n, p, tail),
                  (unsigned long long)binomial_upper_bound(n, p, tail), tail);
    return buf;
}

} // namespace cpcprof::test
