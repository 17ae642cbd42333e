// SPDX-License-Identifier: MIT
// What the report and annotate tests share: the readers of the commands'
// output (tests/support/command_output.h) and a profile with counter
// events for the derived columns.
#pragma once

#include "tests/support/command_output.h"
#include "tests/support/files.h"

#include <string>

namespace cpcprof::test {

// A symbolized profile with four counter events (cycles sampling, period
// 1000; instructions, cache-misses, cache-references counted):
//   4 x main > hot_loop:            cycles 1000, instructions 500,
//                                   cache-misses 10, cache-references 100 each
//   1 x main > templ<int, "x">:     1000, 2000, 1, 50
// so hot_loop has CPI 2, 20 misses per 1k instructions, miss ratio 10 %,
// and templ CPI 0.5, 0.5 per 1k, 2 %.
void write_counter_profile(const std::string &path);

} // namespace cpcprof::test
