// SPDX-License-Identifier: MIT
// Tolerances taken from sample counts.  A count that a test judges - the
// samples that land in a function, the periods whose overflow is taken -
// is binomial: n trials (samples, periods), each a success with
// probability p (the function's share of the time, the chance that a
// period ends where it can be taken).  The bounds here are exact (the
// binomial's own tails, not a normal approximation) and leave out at most
// `tail` of the distribution on their side: with the default, one run in
// a million of a correct program falls outside, whatever n and p, so that
// a test can be as strict as its sample count allows and no stricter.
#pragma once

#include <cstdint>
#include <string>

namespace cpcprof::test {

// One run in a million, on each side.
inline constexpr double kBinomialTail = 1e-6;

// The largest k with P(X < k) <= tail for X ~ Binomial(n, p): X >= k but
// for a share tail of the runs.
uint64_t binomial_lower_bound(uint64_t n, double p, double tail = kBinomialTail);

// The smallest k with P(X > k) <= tail: X <= k but for a share tail.
uint64_t binomial_upper_bound(uint64_t n, double p, double tail = kBinomialTail);

// The lowest success rate that makes k or more successes of n not too
// rare: the smallest p with P(X >= k) >= tail for X ~ Binomial(n, p) (the
// Clopper-Pearson lower limit).  A rate measured by a reference count - k
// of n periods a second counter took - is at least this, but for a share
// tail of the runs.
double binomial_rate_lower_bound(uint64_t k, uint64_t n, double tail = kBinomialTail);

// "k of n, where Binomial(n, p) stays within [lo, hi] but for 1e-6 of
// runs": what a failed assertion says about a count.
std::string binomial_story(uint64_t k, uint64_t n, double p, double tail = kBinomialTail);

} // namespace cpcprof::test
