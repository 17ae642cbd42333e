// SPDX-License-Identifier: MIT
// Ratios of two events recorded together, per row of a report or the
// viewer: misses per 1,000 instructions, cycles per instruction, misses per
// reference.  Only the ratios whose two events the run recorded are offered.
// `cpcprof report` and cpcprof-gui both compute them here, so they agree.
//
// Events are recognised by name (case-insensitive):
//   instructions  instructions, PAPI_tot_ins
//   cycles        cycles, cpu-cycles, PAPI_tot_cyc
//   misses        a name ending in "-misses" (cache-misses,
//                 L1-dcache-load-misses, LLC-load-misses, ...) or
//                 PAPI_Ln_xCM (PAPI_L1_DCM, PAPI_L2_TCM, ...)
//   references    of X-misses: X-references; of X-load-misses: X-loads;
//                 of X-store-misses: X-stores; of PAPI_Ln_xCM: PAPI_Ln_xCA
#pragma once

#include "profiler/analysis/query.h"

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::analysis {

struct DerivedColumn {
    std::string name;  // "CPI", "cache-misses/1k-instructions", "cache-misses/cache-references"
    std::string kind;  // "cpi", "mpki", "miss_ratio"
    int numerator = 0; // event indices
    int denominator = 0;
    double scale = 1; // 1000 for mpki
};

// Nothing when the run recorded fewer than two events.
std::vector<DerivedColumn> derived_columns(const std::vector<EventInfo> &events);

struct DerivedValue {
    std::optional<double> value; // nothing when the denominator's sum is 0
    uint64_t samples = 0;        // the samples the figure comes from
};

// The ratio over the samples of cost.
DerivedValue derive(const DerivedColumn &column, const Cost &cost);

} // namespace cpcprof::analysis
