// SPDX-License-Identifier: MIT
#include "tests/gui/model/model_test_util.h"

#include "tests/storage/helpers.h"        // tests/storage: write_known_profile
#include "tests/support/folded_profile.h" // tests/support

#include <atomic>

namespace cpcprof::guitest {

void ProfileTest::SetUp() {
    temp = std::make_unique<test::TempDir>("cpcprof-gui");
    dir = temp->path();
}

void ProfileTest::TearDown() {
    profile.reset();
    temp.reset();
}

void ProfileTest::load(const std::string &file) {
    std::atomic<bool> cancel{false};
    std::string error;
    profile = gui::load_profile(file, cancel, &error);
    ASSERT_TRUE(profile) << error;
}

void ProfileTest::load_folded(const std::vector<std::string> &events,
                              const std::vector<std::string> &lines, uint64_t period) {
    std::vector<test::FoldedEvent> folded;
    for (size_t i = 0; i < events.size(); ++i)
        folded.push_back({events[i], i == 0 ? period : 0});
    load(test::make_folded_profile(dir, lines, folded, "folded.cpcprof", "/opt/folded"));
}

void ProfileTest::load_known() {
    ASSERT_NO_FATAL_FAILURE(storagetest::write_known_profile(path("known.cpcprof")));
    load(path("known.cpcprof"));
}

uint32_t ProfileTest::function_named(const std::string &name) const {
    const auto &fns = profile->query->functions();
    for (uint32_t f = 0; f < fns.size(); ++f)
        if (fns[f].name == name)
            return f;
    ADD_FAILURE() << "no function " << name;
    return 0;
}

uint32_t child_named(const gui::CostTree &t, uint32_t n, const std::string &name) {
    for (size_t i = 0; i < t.child_count(n); ++i)
        if (t.name(t.child(n, i)) == name)
            return t.child(n, i);
    return 0;
}

std::string regex_quote(const std::string &name) {
    std::string out;
    for (char c : name) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace cpcprof::guitest
