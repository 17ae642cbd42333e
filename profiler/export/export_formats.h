// SPDX-License-Identifier: MIT
// The export formats of `cpcprof export`, each built from a Query (the
// kept samples' distinct stacks, storage/query.h) into a string ready to
// write.  What they share: which value weighs a stack, the unit of an
// event's values, and how a truncated stack is shown.
#pragma once

#include "profiler/analysis/event_units.h"
#include "profiler/analysis/query.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace cpcprof::exporter {

// The weight "samples": the number of samples instead of an event's sum.
inline constexpr int kSamples = -1;
inline constexpr const char kSamplesName[] = "samples";

// A stack's weight: the sum of event `event`'s values, or its samples.
uint64_t weight(const analysis::Cost &cost, int event);
// The name of a weight: the event's, or "samples".
std::string weight_name(const analysis::Query &q, int event);
// analysis::is_time_event (event_units.h): which events count nanoseconds.
using analysis::is_time_event;

// A truncated stack (Query::stack_truncated: its first frame is not a true
// root) gets this frame above its first one, so that it does not merge
// with the stacks that really start there.
inline constexpr const char kTruncatedFrame[] = "[truncated]";

// Folded stacks (Brendan Gregg's FlameGraph input): "root;...;leaf VALUE"
// lines, one per distinct sequence of function names, sorted; stacks whose
// weight is 0 are left out.  ';' in a name becomes ':', control characters
// (newlines) become spaces.
std::string to_folded(const analysis::Query &q, int event);

// pprof's profile.proto (perftools.profiles.Profile), not compressed.
// Sample types: samples, then every event; one Sample per (stack, thread)
// with labels pid, tid and thread; default_sample_type the weight `event`.
// `source` names the profile in a comment.
std::string to_pprof(const analysis::Query &q, int event, const std::string &source);

// data compressed into the gzip format (RFC 1952).  false with *error set
// when zlib fails.
bool gzip(std::string_view data, std::string *out, std::string *error);

// speedscope's JSON file format: one "sampled" profile per thread that
// kept samples, weighted by `event`, frames (one per function) shared.
std::string to_speedscope(const analysis::Query &q, int event, const std::string &source);

} // namespace cpcprof::exporter
