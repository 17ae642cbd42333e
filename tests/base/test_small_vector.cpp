// SPDX-License-Identifier: MIT
// base::SmallVector: up to N elements in itself, more on the heap; copies
// and moves of either kind keep the elements and leave no shared storage.
#include "base/small_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace cpcprof::base {
namespace {

using V = SmallVector<uint64_t, 4>;

TEST(SmallVector, GrowsPastItsOwnRoomAndKeepsTheElements) {
    V v;
    EXPECT_TRUE(v.empty());
    for (uint64_t i = 0; i < 10; ++i) {
        v.push_back(i * 3);
        ASSERT_EQ(v.size(), i + 1);
    }
    for (uint64_t i = 0; i < 10; ++i)
        EXPECT_EQ(v[i], i * 3);
    v.resize(12, 7);
    EXPECT_EQ(v[11], 7u);
    v.resize(2);
    EXPECT_EQ(v, (std::vector<uint64_t>{0, 3}));
    v.assign(3, 9);
    EXPECT_EQ(v, (std::vector<uint64_t>{9, 9, 9}));
    EXPECT_THROW(v.at(3), std::out_of_range);
}

TEST(SmallVector, CopiesAndMovesOfBothKinds) {
    for (size_t n : {size_t{3}, size_t{9}}) { // in itself, on the heap
        V a(n, 5);
        a[0] = 1;
        V b = a;
        b[0] = 2;
        EXPECT_EQ(a[0], 1u) << n;
        V c = std::move(b);
        EXPECT_EQ(c.size(), n);
        EXPECT_EQ(c[0], 2u);
        EXPECT_TRUE(b.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty
        V d{4, 4};
        d = c;
        EXPECT_EQ(d, c);
        d = std::move(a);
        EXPECT_EQ(d[0], 1u);
        EXPECT_EQ(d.size(), n);
        std::vector<uint64_t> plain(n, 5);
        plain[0] = 1;
        EXPECT_EQ(d, plain);
        EXPECT_EQ(V(plain), d);
        EXPECT_EQ(V(plain.begin(), plain.end()), d);
    }
}

} // namespace
} // namespace cpcprof::base
