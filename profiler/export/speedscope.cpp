// SPDX-License-Identifier: MIT
// speedscope's file format (export_formats.h), the "sampled" profile type
// of https://www.speedscope.app/file-format-schema.json: frames {name,
// file} shared by every profile; per thread, samples as arrays of frame
// indices root first and their weights.  Frames are functions, not
// lines: speedscope merges a stack's boxes by frame, and a frame per line
// would split every function in as many boxes as lines it spent time on.
//
// Samples are Query's distinct stacks of the thread, in order of their
// first sample: speedscope's "Time Order" view shows them in that order,
// each stack once with its whole weight, not the samples' timeline.
#include "profiler/analysis/utf8_text.h"
#include "profiler/export/export_formats.h"

#include <cinttypes>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace cpcprof::exporter {

namespace {

// s as a JSON string (quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD).
void append_json(std::string &out, std::string_view s) {
    analysis::append_json_string(out, s);
}

std::string thread_title(const analysis::Query::ThreadCost &t) {
    std::string title = t.name.empty() ? "thread" : t.name;
    return title + " (pid " + std::to_string(t.pid) + ", tid " + std::to_string(t.tid) + ")";
}

class SpeedscopeBuilder {
  public:
    explicit SpeedscopeBuilder(const analysis::Query &q) : q_(q) {}
    std::string build(int event, const std::string &source);

  private:
    // Index of function fn's frame (UINT32_MAX: the truncation frame).
    size_t frame(uint32_t fn);
    void append_stack(std::string &out, size_t stack);

    const analysis::Query &q_;
    std::unordered_map<uint32_t, size_t> frame_of_;
    std::string frames_; // the frames' JSON objects, comma separated
};

size_t SpeedscopeBuilder::frame(uint32_t fn) {
    auto [it, fresh] = frame_of_.try_emplace(fn, frame_of_.size());
    if (!fresh)
        return it->second;
    if (!frames_.empty())
        frames_ += ",\n";
    frames_ += "{\"name\":";
    if (fn == UINT32_MAX) {
        append_json(frames_, kTruncatedFrame);
    } else {
        const analysis::FunctionInfo &info = q_.functions()[fn];
        append_json(frames_, info.name);
        if (!info.file.empty()) {
            frames_ += ",\"file\":";
            append_json(frames_, info.file);
        }
    }
    frames_ += '}';
    return it->second;
}

void SpeedscopeBuilder::append_stack(std::string &out, size_t stack) {
    out += '[';
    bool first = true;
    auto add = [&](size_t index) {
        if (!first)
            out += ',';
        first = false;
        out += std::to_string(index);
    };
    if (q_.stack_truncated(stack))
        add(frame(UINT32_MAX));
    for (const analysis::PathFrame &f : q_.stack(stack))
        add(frame(f.function));
    out += ']';
}

std::string SpeedscopeBuilder::build(int event, const std::string &source) {
    const std::string name = weight_name(q_, event);
    const char *unit = event != kSamples && is_time_event(name) ? "nanoseconds" : "none";
    std::string profiles;
    size_t active = 0;
    uint64_t heaviest = 0;
    const auto &split = q_.stack_thread_costs();
    std::vector<std::vector<size_t>> by_thread(q_.threads().size());
    for (size_t i = 0; i < split.size(); ++i)
        by_thread[split[i].thread].push_back(i);
    for (size_t t = 0; t < by_thread.size(); ++t) {
        std::string samples, weights;
        uint64_t total = 0;
        for (size_t i : by_thread[t]) {
            const auto &st = split[i];
            uint64_t w = weight(st.cost, event);
            if (w == 0)
                continue;
            if (!samples.empty()) {
                samples += ',';
                weights += ',';
            }
            append_stack(samples, st.stack);
            weights += std::to_string(w);
            total += w;
        }
        if (total > heaviest) {
            heaviest = total;
            active = t;
        }
        if (t > 0)
            profiles += ",\n";
        profiles += "{\"type\":\"sampled\",\"name\":";
        append_json(profiles, thread_title(q_.threads()[t]) + " " + name);
        profiles += ",\"unit\":\"" + std::string(unit) +
                    "\",\"startValue\":0,\"endValue\":" + std::to_string(total) +
                    ",\n\"samples\":[" + samples + "],\n\"weights\":[" + weights + "]}";
    }
    std::string out = "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n";
    out += "\"name\":";
    append_json(out, source);
    out += ",\"exporter\":\"cpcprof export\",\"activeProfileIndex\":" + std::to_string(active) +
           ",\n\"shared\":{\"frames\":[\n" + frames_ + "]},\n\"profiles\":[\n" + profiles + "]}\n";
    return out;
}

} // namespace

std::string to_speedscope(const analysis::Query &q, int event, const std::string &source) {
    return SpeedscopeBuilder(q).build(event, source);
}

} // namespace cpcprof::exporter
