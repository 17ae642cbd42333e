// SPDX-License-Identifier: MIT
// pprof's profile.proto (export_formats.h), written with ProtoWriter.
// Field numbers are those of perftools.profiles.Profile
// (github.com/google/pprof proto/profile.proto).
//
// A Location is one code address as the symbolizer saw it: a function
// and the calls inlined into it, as Line entries innermost first (the
// last Line is the function the code belongs to).  Query gives stacks as
// frames root first, an inlined frame after the frame it was inlined into,
// so a Location is a run of frames that starts at a frame not inlined.
// Locations have no address (Query names code, it does not keep
// addresses); every Location has Lines, so pprof never tries to symbolize
// it again.
#include "profiler/analysis/utf8_text.h"
#include "profiler/export/export_formats.h"
#include "profiler/export/proto_writer.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace cpcprof::exporter {

namespace {

using analysis::PathFrame;

// perftools.profiles field numbers.
namespace profile_field {
constexpr uint32_t kSampleType = 1, kSample = 2, kMapping = 3, kLocation = 4, kFunction = 5,
                   kStringTable = 6, kTimeNanos = 9, kDurationNanos = 10, kPeriodType = 11,
                   kPeriod = 12, kComment = 13, kDefaultSampleType = 14;
}
namespace value_type_field {
constexpr uint32_t kType = 1, kUnit = 2;
}
namespace sample_field {
constexpr uint32_t kLocationId = 1, kValue = 2, kLabel = 3;
}
namespace label_field {
constexpr uint32_t kKey = 1, kStr = 2, kNum = 3;
}
namespace mapping_field {
constexpr uint32_t kId = 1, kMemoryStart = 2, kMemoryLimit = 3, kFileOffset = 4, kFilename = 5,
                   kBuildId = 6, kHasFunctions = 7, kHasFilenames = 8, kHasLineNumbers = 9,
                   kHasInlineFrames = 10;
}
namespace location_field {
constexpr uint32_t kId = 1, kMappingId = 2, kLine = 4;
}
namespace line_field {
constexpr uint32_t kFunctionId = 1, kLine = 2;
}
namespace function_field {
constexpr uint32_t kId = 1, kName = 2, kSystemName = 3, kFilename = 4;
}

// a as a shell word: quoted when empty or when it holds a character
// other than letters, digits and _./=:,+-@%.
std::string shell_quoted(const std::string &a) {
    bool plain =
        !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                                          "TUVWXYZ0123456789_./=:,+-@%") == std::string::npos;
    if (plain)
        return a;
    std::string q = "'";
    for (char c : a)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

class PprofBuilder {
  public:
    explicit PprofBuilder(const analysis::Query &q) : q_(q) { str(""); }

    std::string build(int event, const std::string &source);

  private:
    int64_t str(const std::string &s);
    ProtoWriter value_type(const std::string &type, const std::string &unit);
    uint64_t mapping(const std::string &module);
    uint64_t function(uint32_t fn, uint32_t file);
    uint64_t truncated_location();
    // The Location of frames [first, last) of a stack (an outer frame and
    // the calls inlined into it).
    uint64_t location(std::span<const PathFrame> group);
    std::vector<uint64_t> location_ids(size_t stack);
    void add_samples();
    void add_header(int event, const std::string &source);

    const analysis::Query &q_;
    ProtoWriter out_;
    std::vector<std::string> strings_;
    std::unordered_map<std::string, int64_t> string_ids_;
    std::map<std::string, uint64_t> mappings_;                    // by module path
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> functions_; // by (function, file)
    std::map<std::vector<uint64_t>, uint64_t> locations_;         // by (mapping, function, line...)
    uint64_t truncated_ = 0;
};

int64_t PprofBuilder::str(const std::string &text) {
    // protobuf's string fields are UTF-8: names and arguments from the
    // profile are bytes.
    std::string s = analysis::valid_utf8(text);
    auto [it, fresh] = string_ids_.try_emplace(s, int64_t(strings_.size()));
    if (fresh)
        strings_.push_back(std::move(s));
    return it->second;
}

ProtoWriter PprofBuilder::value_type(const std::string &type, const std::string &unit) {
    ProtoWriter vt;
    vt.int_field(value_type_field::kType, str(type));
    vt.int_field(value_type_field::kUnit, str(unit));
    return vt;
}

uint64_t PprofBuilder::mapping(const std::string &module) {
    if (module.empty())
        return 0;
    auto [it, fresh] = mappings_.try_emplace(module, mappings_.size() + 1);
    if (!fresh)
        return it->second;
    const auto &modules = q_.reader().modules();
    auto m = std::find_if(modules.begin(), modules.end(),
                          [&](const storage::ModuleRecord &r) { return r.info.path == module; });
    bool symbols = m != modules.end() && m->has_symbols.value_or(false);
    ProtoWriter w;
    w.uint_field(mapping_field::kId, it->second);
    if (m != modules.end()) {
        w.uint_field(mapping_field::kMemoryStart, m->info.start);
        w.uint_field(mapping_field::kMemoryLimit, m->info.end);
        w.uint_field(mapping_field::kFileOffset, m->info.file_offset);
        w.int_field(mapping_field::kBuildId, str(m->info.build_id));
    }
    w.int_field(mapping_field::kFilename, str(module));
    // Every location has its function named (by symbol or module+offset).
    w.uint_field(mapping_field::kHasFunctions, 1);
    w.uint_field(mapping_field::kHasFilenames, symbols);
    w.uint_field(mapping_field::kHasLineNumbers, symbols);
    w.uint_field(mapping_field::kHasInlineFrames, symbols && q_.filter().inline_frames);
    out_.message_field(profile_field::kMapping, w);
    return it->second;
}

uint64_t PprofBuilder::function(uint32_t fn, uint32_t file) {
    auto [it, fresh] = functions_.try_emplace({fn, file}, functions_.size() + 1);
    if (!fresh)
        return it->second;
    const analysis::FunctionInfo &info = q_.functions()[fn];
    const std::string &path = file != 0 ? q_.files()[file] : info.file;
    ProtoWriter w;
    w.uint_field(function_field::kId, it->second);
    w.int_field(function_field::kName, str(info.name));
    w.int_field(function_field::kSystemName, str(info.name));
    w.int_field(function_field::kFilename, str(path));
    out_.message_field(profile_field::kFunction, w);
    return it->second;
}

uint64_t PprofBuilder::location(std::span<const PathFrame> group) {
    uint64_t map_id = mapping(q_.functions()[group.front().function].module);
    std::vector<uint64_t> key = {map_id};
    for (size_t k = group.size(); k-- > 0;) { // innermost first
        key.push_back(function(group[k].function, group[k].file));
        key.push_back(group[k].line);
    }
    auto [it, fresh] = locations_.try_emplace(key, locations_.size() + 1);
    if (!fresh)
        return it->second;
    ProtoWriter w;
    w.uint_field(location_field::kId, it->second);
    w.uint_field(location_field::kMappingId, map_id);
    for (size_t k = 1; k < key.size(); k += 2) {
        ProtoWriter line;
        line.uint_field(line_field::kFunctionId, key[k]);
        line.int_field(line_field::kLine, int64_t(key[k + 1]));
        w.message_field(location_field::kLine, line);
    }
    out_.message_field(profile_field::kLocation, w);
    return it->second;
}

uint64_t PprofBuilder::truncated_location() {
    if (truncated_ != 0)
        return truncated_;
    truncated_ = locations_.size() + 1;
    locations_.try_emplace({}, truncated_); // no real location has an empty key
    ProtoWriter fn;
    uint64_t fn_id = functions_.size() + 1;
    functions_.try_emplace({UINT32_MAX, 0}, fn_id);
    fn.uint_field(function_field::kId, fn_id);
    fn.int_field(function_field::kName, str(kTruncatedFrame));
    fn.int_field(function_field::kSystemName, str(kTruncatedFrame));
    out_.message_field(profile_field::kFunction, fn);
    ProtoWriter line;
    line.uint_field(line_field::kFunctionId, fn_id);
    ProtoWriter w;
    w.uint_field(location_field::kId, truncated_);
    w.message_field(location_field::kLine, line);
    out_.message_field(profile_field::kLocation, w);
    return truncated_;
}

std::vector<uint64_t> PprofBuilder::location_ids(size_t stack) {
    const std::vector<PathFrame> path = q_.stack(stack);
    std::span<const PathFrame> frames = path;
    std::vector<uint64_t> ids; // leaf first, as pprof wants
    size_t end = frames.size();
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && frames[start].inlined)
            --start;
        ids.push_back(location(frames.subspan(start, end - start)));
        end = start;
    }
    if (q_.stack_truncated(stack))
        ids.push_back(truncated_location());
    return ids;
}

void PprofBuilder::add_samples() {
    int64_t key_pid = str("pid"), key_tid = str("tid"), key_thread = str("thread");
    std::vector<std::vector<uint64_t>> ids(q_.stack_count());
    for (const auto &st : q_.stack_thread_costs()) {
        if (ids[st.stack].empty())
            ids[st.stack] = location_ids(st.stack);
        const auto &thread = q_.threads()[st.thread];
        // pprof's values are int64: a sum beyond INT64_MAX (only absurd
        // files have one) is written as INT64_MAX, never as a negative.
        std::vector<uint64_t> values = {st.cost.samples};
        values.insert(values.end(), st.cost.values.begin(), st.cost.values.end());
        for (uint64_t &v : values)
            v = std::min<uint64_t>(v, INT64_MAX);
        ProtoWriter s;
        s.packed_field(sample_field::kLocationId, ids[st.stack]);
        s.packed_field(sample_field::kValue, values);
        auto label = [&](int64_t key, int64_t num, const std::string *text) {
            ProtoWriter l;
            l.int_field(label_field::kKey, key);
            if (text)
                l.int_field(label_field::kStr, str(*text));
            else
                l.int_field(label_field::kNum, num);
            s.message_field(sample_field::kLabel, l);
        };
        label(key_pid, thread.pid, nullptr);
        label(key_tid, thread.tid, nullptr);
        if (!thread.name.empty())
            label(key_thread, 0, &thread.name);
        out_.message_field(profile_field::kSample, s);
    }
}

void PprofBuilder::add_header(int event, const std::string &source) {
    out_.message_field(profile_field::kSampleType, value_type(kSamplesName, "count"));
    const auto &events = q_.events();
    size_t sampling = 0;
    for (size_t e = 0; e < events.size(); ++e) {
        const std::string &name = events[e].name;
        out_.message_field(profile_field::kSampleType,
                           value_type(name, is_time_event(name) ? "nanoseconds" : "count"));
        if (events[e].sampling && !events[sampling].sampling)
            sampling = e;
    }
    if (!events.empty()) {
        const std::string &name = events[sampling].name;
        out_.message_field(profile_field::kPeriodType,
                           value_type(name, is_time_event(name) ? "nanoseconds" : "count"));
        out_.int_field(profile_field::kPeriod,
                       int64_t(std::min<uint64_t>(events[sampling].period, INT64_MAX)));
    }
    out_.int_field(profile_field::kDefaultSampleType, str(weight_name(q_, event)));

    const storage::Reader &r = q_.reader();
    int64_t from = q_.filter().from_ns.value_or(0);
    // Wrapping sums: a file's times may be anything.
    out_.int_field(profile_field::kTimeNanos, int64_t(uint64_t(r.run().start_ns) + uint64_t(from)));
    if (r.end_ns()) {
        int64_t to = r.since_start(*r.end_ns());
        if (q_.filter().to_ns)
            to = std::min(to, *q_.filter().to_ns);
        out_.int_field(profile_field::kDurationNanos, to > from ? to - from : 0); // from >= 0
    }
    std::string command;
    for (const std::string &a : r.run().command)
        command += (command.empty() ? "" : " ") + shell_quoted(a);
    out_.int_field(profile_field::kComment, str("cpcprof export of " + source));
    if (!command.empty())
        out_.int_field(profile_field::kComment, str("command: " + command));
}

std::string PprofBuilder::build(int event, const std::string &source) {
    add_header(event, source);
    add_samples();
    for (const std::string &s : strings_)
        out_.bytes_field(profile_field::kStringTable, s);
    return out_.bytes();
}

} // namespace

std::string to_pprof(const analysis::Query &q, int event, const std::string &source) {
    return PprofBuilder(q).build(event, source);
}

} // namespace cpcprof::exporter
