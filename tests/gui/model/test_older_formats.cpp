// SPDX-License-Identifier: MIT
// The viewer's loader on profiles of every older format version
// (tests/storage/data/README.md): each loads with all its samples and its
// trees, and the demo's functions by name where the version was
// symbolized (from version 2 on); the summary does not advise symbolize
// for version 1, which it refuses.
#include "tests/storage/helpers.h" // tests/storage: query_text

#include "gui/model/profile_data.h"
#include "gui/model/summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>

namespace cpcprof::guitest {
namespace {

TEST(OlderFormats, EveryVersionLoadsInTheViewer) {
    const std::pair<const char *, bool> files[] = {
        {"format-1.cpcprof", false},
        {"format-2.cpcprof", true},
        {"format-3-early-notice.cpcprof", true},
        {"format-3-early-unsampled.cpcprof", true},
        {"format-3.cpcprof", true},
        {"format-4.cpcprof", true},
        {"format-5.cpcprof", true},
    };
    for (const auto &[name, symbolized] : files) {
        const std::string file = std::string(STORAGE_TEST_DATA) + "/" + name;
        std::atomic<bool> cancel{false};
        std::string error;
        gui::ProfilePtr p = gui::load_profile(file, cancel, &error);
        ASSERT_TRUE(p) << error;
        const uint64_t samples =
            std::stoull(storagetest::query_text(file, "SELECT count(*) FROM sample"));
        ASSERT_GT(samples, 100u) << name;
        EXPECT_EQ(p->query->total().samples, samples) << name;
        EXPECT_TRUE(p->top_down && p->bottom_up) << name;
        const auto &fns = p->query->functions();
        for (const char *fn : {"main", "matrix_multiply", "walk_list"})
            EXPECT_EQ(
                std::any_of(fns.begin(), fns.end(), [&](const auto &f) { return f.name == fn; }),
                symbolized)
                << name << ": " << fn;
        // The summary's advice: symbolize, except where the format has no
        // symbol tables to write.
        const std::string fix = gui::make_summary(*p, 0).symbols_fix;
        if (!symbolized)
            EXPECT_EQ(fix, "The profile is not symbolized, and its format (version 1) has no "
                           "symbol tables: record the program again for function names");
        else
            EXPECT_EQ(fix.find("not symbolized"), std::string::npos) << fix;
    }
}

} // namespace
} // namespace cpcprof::guitest
