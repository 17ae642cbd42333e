// SPDX-License-Identifier: MIT
// What a sample's values can be.  The recorder stores, per sample, the
// sampling event's period (the sample stands for that many events) and
// the count of each other event since the previous sample.  A value that
// no recording produces is refused, by `cpcprof check` and by Query (so
// every reader): shares computed from it would be meaningless.
//   - the sampling event's value is exactly its period (when it has one);
//   - the value of the off-CPU event (records.h kOffCpuEvent) is 0;
//   - any other value is below 2^63 (a counter of 10^10 events per second
//     needs 29 years to get there; pprof's values are int64).
#pragma once

#include "storage/records.h"

#include <cstdint>
#include <span>
#include <string>

namespace cpcprof::storage {

// The largest count a sample may carry for an event that is not sampling.
constexpr uint64_t kMaxCountPerSample = (uint64_t{1} << 63) - 1;

// "" when every value is possible for a sample of run; else why not,
// e.g. "cpu-clock value 5 is not its period 1000000".  Values past the
// run's events are not judged here (a wrong number of values is its own
// problem).
std::string impossible_values(const RunInfo &run, std::span<const uint64_t> values);

} // namespace cpcprof::storage
