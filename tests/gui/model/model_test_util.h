// SPDX-License-Identifier: MIT
// Shared by the model and item-model tests: a temporary directory, a
// profile loaded from folded stacks (tests/support's make_folded_profile)
// or the storage tests' known profile, and lookups by name.
#pragma once

#include "tests/support/temp_dir.h"

#include "gui/model/cost_tree.h"
#include "gui/model/profile_data.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cpcprof::guitest {

struct ProfileTest : ::testing::Test {
    std::unique_ptr<test::TempDir> temp;
    std::string dir;
    gui::ProfilePtr profile;
    void SetUp() override;
    void TearDown() override;
    std::string path(const std::string &name) const { return dir + "/" + name; }
    // Writes folded.cpcprof from folded-stack lines (tests/support/README.md)
    // and loads it with gui::load_profile.  events: the first samples every
    // period, the others count; the program is /opt/folded.
    void load_folded(const std::vector<std::string> &events, const std::vector<std::string> &lines,
                     uint64_t period = 10);
    // tests/storage's write_known_profile, loaded.
    void load_known();
    void load(const std::string &file);
    // The function named name (ADD_FAILURE and 0 if none).
    uint32_t function_named(const std::string &name) const;
};

// The child of node n whose function is named name; 0 if none.
uint32_t child_named(const gui::CostTree &t, uint32_t n, const std::string &name);

// name with every character a regular expression gives a meaning escaped.
std::string regex_quote(const std::string &name);

} // namespace cpcprof::guitest
