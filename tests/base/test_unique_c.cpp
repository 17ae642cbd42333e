// SPDX-License-Identifier: MIT
// UniqueC: a C resource is released once, by its library's function, and
// a null pointer is never passed to it.
#include "base/unique_c.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace {

struct Handle {
    int id;
};

std::vector<int> g_released; // ids, in the order handle_free saw them

// A C library's release function: returns a status, as cpc_close does.
extern "C" int handle_free(Handle *h) {
    g_released.push_back(h->id);
    delete h;
    return 0;
}

using UniqueHandle = cpcprof::base::UniqueC<Handle, handle_free>;

} // namespace

TEST(UniqueC, ReleasesOnceWhenTheOwnerGoesAway) {
    g_released.clear();
    {
        UniqueHandle h(new Handle{7});
        EXPECT_EQ(h->id, 7);
        EXPECT_TRUE(g_released.empty());
    }
    EXPECT_EQ(g_released, std::vector<int>{7});
}

TEST(UniqueC, NullIsNeverReleased) {
    g_released.clear();
    { UniqueHandle h; }
    { UniqueHandle h(nullptr); }
    EXPECT_TRUE(g_released.empty());
}

TEST(UniqueC, MoveAndResetReleaseEachHandleOnce) {
    g_released.clear();
    UniqueHandle a(new Handle{1});
    UniqueHandle b(std::move(a));
    EXPECT_TRUE(g_released.empty());
    b.reset(new Handle{2}); // releases 1
    EXPECT_EQ(g_released, std::vector<int>{1});
    Handle *raw = b.release(); // 2 is no longer owned
    b.reset();
    EXPECT_EQ(g_released, std::vector<int>{1});
    handle_free(raw);
    EXPECT_EQ(g_released, (std::vector<int>{1, 2}));
}
