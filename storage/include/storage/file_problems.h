// SPDX-License-Identifier: MIT
// What `cpcprof check` reports about a profile that opened, worded once
// for check and for the readers (report, annotate, flamegraph, export,
// diff, the GUI): the readers warn with the same words.  What check
// refuses beyond these, Reader refuses by itself: damage PRAGMA
// integrity_check finds (Reader::open) and a sample with the wrong number
// of values (Reader::for_each_sample).
#pragma once

#include "storage/reader.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cpcprof::storage {

// "accounting of process P does not balance: taken T != stored S +
// dropped D", per process, then "accounting does not balance in total:
// ..."; empty when it balances.
std::vector<std::string> accounting_problems(const Reader &r);

// For a complete file: "process P has N samples in the file, its
// accounting says S stored", per process whose count differs.  per_pid:
// the samples the file holds per process (Reader::samples_per_process()).
// Empty for an incomplete file: a killed recorder may have committed
// samples whose accounting it had not yet written.
std::vector<std::string> stored_count_problems(const Reader &r,
                                               const std::map<int, uint64_t> &per_pid);

// "N samples have V values, the run has E events" (singulars for 1).
std::string value_count_problem(uint64_t samples, uint64_t values, uint64_t events);

} // namespace cpcprof::storage
