// SPDX-License-Identifier: MIT
// The colour both differential flame graphs (the viewer's and `cpcprof
// diff -o FILE.html`) give a frame from its change of share.
#include "profiler/analysis/diff_model.h"

#include <gtest/gtest.h>

namespace cpcprof::test {
namespace {

using analysis::change_colour;

TEST(ChangeColour, GrewRedShrankBlueUnchangedGrey) {
    analysis::Rgb grew = change_colour(2, 4), shrank = change_colour(-2, 4),
                  same = change_colour(0, 4);
    EXPECT_GT(grew.r, grew.g);
    EXPECT_EQ(grew.g, grew.b);
    EXPECT_GT(shrank.b, shrank.r);
    EXPECT_EQ(shrank.r, shrank.g);
    EXPECT_EQ(grew.r, shrank.b) << "same size of change, same strength";
    EXPECT_EQ(same.r, 220);
    EXPECT_EQ(same.g, 220);
    EXPECT_EQ(same.b, 220);
}

TEST(ChangeColour, SaturatesAtTheLargestChangeButNotBelowOnePoint) {
    analysis::Rgb full = change_colour(4, 4), half = change_colour(2, 4);
    EXPECT_EQ(full.r, 255);
    EXPECT_EQ(full.g, 120) << "black text stays readable on it";
    EXPECT_LT(half.r, full.r);
    EXPECT_GT(half.g, full.g);
    // A picture whose largest change is 0.1 point stays pale.
    analysis::Rgb noise = change_colour(0.1, 0.1);
    EXPECT_GT(noise.g, 180);
    EXPECT_EQ(change_colour(9, 4).g, 120) << "beyond the largest: still full";
}

} // namespace
} // namespace cpcprof::test
