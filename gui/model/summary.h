// SPDX-License-Identifier: MIT
// What the Summary page says about a profile, without Qt: labelled lines
// in the words `cpcprof report`'s header uses (accounting_text.h,
// report_output.h), from the same Reader and Query, so that the numbers
// agree with the report on the same file.
#pragma once

#include "gui/model/profile_data.h"

#include <string>
#include <vector>

namespace cpcprof::gui {

struct SummaryLine {
    std::string label;
    std::string value;
};

struct SummaryFunction {
    std::string name;
    std::string module;
    double self_share = 0;  // of all kept samples' event
    double total_share = 0; // once per sample
    uint64_t self_samples = 0;
};

struct Summary {
    std::vector<SummaryLine> lines;
    // Modules whose sampled addresses lack names, with their share of
    // samples, and what fixes it ("" when nothing needs fixing).
    std::vector<std::string> modules_without_symbols;
    std::string symbols_fix;
    std::vector<SummaryFunction> top; // by self cost of event, largest first
};

// event: index of the event that orders the top functions.
Summary make_summary(const ProfileData &profile, int event, size_t top = 15);

// Exit status or signal of a process, as the summary states it:
// "exit 0", "killed by signal 9 (SIGKILL)", "ended, how not known",
// "running at the end".
std::string process_end_text(const storage::ProcessRecord &p);

} // namespace cpcprof::gui
