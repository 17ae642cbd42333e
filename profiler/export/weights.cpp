// SPDX-License-Identifier: MIT
// What the export formats share (export_formats.h): weights and units.
#include "profiler/export/export_formats.h"

#include <cctype>

namespace cpcprof::exporter {

uint64_t weight(const analysis::Cost &cost, int event) {
    if (event == kSamples)
        return cost.samples;
    return size_t(event) < cost.values.size() ? cost.values[size_t(event)] : 0;
}

std::string weight_name(const analysis::Query &q, int event) {
    return event == kSamples ? kSamplesName : q.events().at(size_t(event)).name;
}

bool is_time_event(std::string_view name) {
    std::string lower;
    for (char c : name)
        lower.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    return lower == "cpu-clock" || lower == "task-clock";
}

} // namespace cpcprof::exporter
