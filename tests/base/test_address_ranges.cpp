// SPDX-License-Identifier: MIT
// merge_ranges: the fewest ranges covering the same addresses.
#include "base/address_ranges.h"

#include <gtest/gtest.h>

using cpcprof::base::AddressRange;
using cpcprof::base::merge_ranges;
using Ranges = std::vector<AddressRange>;

TEST(MergeRanges, OverlappingTouchingAndRepeatedRangesBecomeOne) {
    EXPECT_EQ(merge_ranges({{30, 40}, {10, 20}, {20, 25}, {10, 20}, {12, 15}, {50, 60}, {35, 45}}),
              (Ranges{{10, 25}, {30, 45}, {50, 60}}));
}

TEST(MergeRanges, SeparateRangesStaySeparateAndSorted) {
    EXPECT_EQ(merge_ranges({{5, 6}, {1, 2}, {3, 4}}), (Ranges{{1, 2}, {3, 4}, {5, 6}}));
    EXPECT_EQ(merge_ranges({}), Ranges{});
    EXPECT_EQ(merge_ranges({{0, UINT64_MAX}, {7, 9}}), (Ranges{{0, UINT64_MAX}}));
}
