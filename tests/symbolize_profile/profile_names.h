// SPDX-License-Identifier: MIT
// What a report would show of a profile: samples per function through
// storage's StackLocator and SymbolTable, the way cpcprof report reads a
// file (stored symbols only; nothing is resolved here).
#pragma once

#include "storage/profile.h"

#include <cstdint>
#include <map>
#include <string>

namespace cpcprof::test {

struct FunctionCounts {
    uint64_t samples = 0;
    uint64_t unnamed_leaves = 0;                // samples whose leaf has no stored symbol
    std::map<std::string, uint64_t> self;       // leaf's real (not inlined) function
    std::map<std::string, uint64_t> total;      // function anywhere on the stack, inlined ones too
    std::map<std::string, std::string> file_of; // function -> source file of a frame in it
};

// false with *error when the samples cannot be read.
bool function_counts(const storage::Reader &reader, FunctionCounts *out, std::string *error);

// The function with the most self samples; "" when none has any.
std::string hottest(const FunctionCounts &counts);

} // namespace cpcprof::test
