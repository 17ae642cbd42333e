// SPDX-License-Identifier: MIT
// The cost columns every tree and table of the viewer shows, without Qt:
// self and total of every recorded event, then the derived ratios
// (storage/derived.h, as `cpcprof report` defines them) over the row's
// self samples (as report computes them) and over its total samples.
#pragma once

#include "profiler/analysis/derived.h"
#include "profiler/analysis/query.h"

#include <optional>
#include <string>
#include <vector>

namespace cpcprof::gui {

struct CostColumn {
    enum class Kind { Self, Total, DerivedSelf, DerivedTotal };
    Kind kind = Kind::Self;
    int event = 0;      // Self, Total: index in Query::events()
    int derived = 0;    // Derived*: index in CostColumns::derived
    std::string header; // "self:cycles", "total:cycles", "CPI", "total:CPI"
    std::string label;  // header with a long event name shortened (short_event_name)
};

// An event's name as a column header shows it: at most kShortName
// characters, a PMU prefix ("perf::", "skl::") dropped first, then the
// middle elided ("PERF_CO…HE_MISSES"); the full name goes in the tooltip.
inline constexpr size_t kShortName = 18;
std::string short_event_name(const std::string &name);

struct CostColumns {
    std::vector<analysis::DerivedColumn> derived;
    std::vector<CostColumn> columns; // self and total per event, then derived
    std::vector<uint64_t> totals;    // per event: the kept total (share's denominator)
    std::vector<bool> time_event;    // per event: its values are ns (analysis::is_time_event)
};

CostColumns cost_columns(const analysis::Query &q);

// The column's figure for a row of these costs: an event's value, or the
// ratio (nothing when its denominator is 0).
std::optional<double> column_value(const CostColumns &c, const CostColumn &col,
                                   const analysis::Cost &self, const analysis::Cost &total);

// Samples the column's figure rests on (the self or total samples).
uint64_t column_samples(const CostColumn &col, const analysis::Cost &self,
                        const analysis::Cost &total);

// An event column's value as a share of the event's kept total, in [0, 1];
// nothing for derived columns and events whose total is 0.
std::optional<double> column_share(const CostColumns &c, const CostColumn &col,
                                   const analysis::Cost &self, const analysis::Cost &total);

// The column of event's total (Kind::Total), or its self; -1 if none.
int event_column(const CostColumns &c, int event, CostColumn::Kind kind);

} // namespace cpcprof::gui
