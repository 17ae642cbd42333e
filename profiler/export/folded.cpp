// SPDX-License-Identifier: MIT
// Folded stacks (export_formats.h): the input of flamegraph.pl, inferno
// and most flame graph viewers.  Frames are function names only, so
// stacks that differ by line or module but not by name add up on one line.
#include "profiler/export/export_formats.h"

#include <map>

namespace cpcprof::exporter {

namespace {

void append_frame(std::string &out, std::string_view name) {
    for (char c : name) {
        if (c == ';')
            out += ':';
        else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            out += ' ';
        else
            out += c;
    }
}

} // namespace

std::string to_folded(const analysis::Query &q, int event) {
    std::map<std::string, uint64_t> lines;
    std::string key;
    for (size_t i = 0; i < q.stack_count(); ++i) {
        uint64_t w = weight(q.stack_cost(i), event);
        if (w == 0)
            continue;
        key.clear();
        if (q.stack_truncated(i))
            key = kTruncatedFrame;
        for (const analysis::PathFrame &f : q.stack(i)) {
            if (!key.empty())
                key += ';';
            append_frame(key, q.functions()[f.function].name);
        }
        lines[key] += w;
    }
    std::string out;
    for (const auto &[stack, value] : lines) {
        out += stack;
        out += ' ';
        out += std::to_string(value);
        out += '\n';
    }
    return out;
}

} // namespace cpcprof::exporter
