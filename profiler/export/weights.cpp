// SPDX-License-Identifier: MIT
// What the export formats share (export_formats.h): weights and units.
#include "profiler/export/export_formats.h"

namespace cpcprof::exporter {

uint64_t weight(const analysis::Cost &cost, int event) {
    if (event == kSamples)
        return cost.samples;
    return size_t(event) < cost.values.size() ? cost.values[size_t(event)] : 0;
}

std::string weight_name(const analysis::Query &q, int event) {
    return event == kSamples ? kSamplesName : q.events().at(size_t(event)).name;
}

} // namespace cpcprof::exporter
