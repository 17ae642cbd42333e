// SPDX-License-Identifier: MIT
// Large synthetic profiles for the benchmarks: many distinct stacks shaped
// like a call tree, their Zipf-like popularity, and what each table of the
// file then takes.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace cpcprof::test {

// Where the stacks' code is: a PIE executable and a shared library, each
// kSyntheticSpan bytes, as a real process has them.
constexpr uint64_t kSyntheticExe = 0x55d0c8a00000;
constexpr uint64_t kSyntheticLib = 0x7f3a5c200000;
constexpr uint64_t kSyntheticSpan = 8u << 20;

// count distinct stacks of depth frames, leaf first, shaped like a call
// tree: each new stack follows an earlier one for its outer frames (5 to
// depth-1 of them), then goes its own way; a third of the addresses are in
// the library.
std::vector<std::vector<uint64_t>> tree_shaped_stacks(unsigned count, unsigned depth,
                                                      std::mt19937_64 &rng);

// The cumulative distribution of Zipf(1) over n ranks (the last is 1).
std::vector<double> zipf_cdf(unsigned n);

// Bytes and pages of each table and index, largest first, through SQLite's
// dbstat table; nullopt when this SQLite has no dbstat or the file cannot
// be read.
struct TableSize {
    std::string name;
    double bytes = 0;
    long long pages = 0;
};
std::optional<std::vector<TableSize>> table_sizes(const std::string &path);

} // namespace cpcprof::test
