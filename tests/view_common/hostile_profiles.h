// SPDX-License-Identifier: MIT
// Generated profiles whose shape is hostile to a reader, for the tests of
// cost and depth (test_deep_stacks.cpp, test_growth.cpp): small files
// that ask for deep walks, many overlapping mappings or numbers at the
// edge of 64 bits.  Every writer fails the calling test on error.
#pragma once

#include <cstdint>
#include <string>

namespace cpcprof::test {

// One process, one module /opt/deep (symbolized: address i of the chain is
// function "f<i>" in /src/deep.c, or "recurse" when recursive), events
// cpu-clock (period 1e6, sampling) and page-faults.
//   samples == 1: one sample whose stack is `depth` frames deep;
//   samples  > 1: sample k (0-based) stops at depth depth*(k+1)/samples, so
//                 the file holds one chain of `depth` stack nodes and the
//                 samples share it (a staircase).
// recursive: every frame is the same function (self-recursion).
void write_deep_profile(const std::string &path, uint32_t depth, uint32_t samples, bool recursive);

// `mappings` overlapping mappings of one process (each loaded at its own
// time, half of them unloaded later, all covering the code the samples
// hit) and `samples` samples spread over the mappings' lifetimes, each 8
// frames deep.
void write_overlapping_mappings_profile(const std::string &path, uint32_t mappings,
                                        uint32_t samples);

// A two-stack profile with sample values chosen by the caller: `hot`
// samples "main > hot" with values {period_value, count}, then one
// "main > cold" with {1'000'000, 1}.  Event 0 is cpu-clock, period 1e6;
// event 1 page-faults.
void write_valued_profile(const std::string &path, uint64_t period_value, uint64_t count,
                          uint32_t hot = 1);

} // namespace cpcprof::test
