// SPDX-License-Identifier: MIT
// The text helpers of profiler/analysis/table_format.h that the commands'
// messages and the flame graphs' tooltips print numbers with.
#include "profiler/analysis/table_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using namespace cpcprof::analysis;

namespace {

std::string grouped(uint64_t v) {
    std::string out = ">";
    append_grouped(out, v);
    return out;
}

} // namespace

TEST(TableFormat, DigitsGroupedByThreeFromTheRight) {
    EXPECT_EQ(grouped(0), ">0");
    EXPECT_EQ(grouped(999), ">999");
    EXPECT_EQ(grouped(1000), ">1,000");
    EXPECT_EQ(grouped(16777216), ">16,777,216");
    EXPECT_EQ(grouped(UINT64_MAX), ">18,446,744,073,709,551,615");
}

TEST(TableFormat, SharesAndFixedNumbers) {
    EXPECT_EQ(percent(share(6, 11)), "54.55%");
    EXPECT_EQ(percent(share(1, 0)), "-");
    EXPECT_EQ(fixed(2.345, 1), "2.3");
    EXPECT_EQ(fixed(std::nullopt, 2), "-");
}
