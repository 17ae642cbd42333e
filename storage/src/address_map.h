// AddressMap: which mapping held a code address of a process at a time,
// by the rule in the format (schema.cpp, mapping): the mapping live then;
// else the last one unloaded before; else the first one loaded after.
//
// Built for many lookups: a process's time is cut at every load and unload
// of its mappings into spans in which its mappings do not change; a
// context is one (process, span) and is built the first time a lookup
// falls in it.  Same context, same answers: callers resolve each
// (context, stack node) once.
#pragma once

#include "storage/records.h"

#include <cstdint>
#include <limits>
#include <span>
#include <unordered_map>
#include <vector>

namespace cpcprof::storage {

class AddressMap {
  public:
    static constexpr uint32_t kNoMapping = std::numeric_limits<uint32_t>::max();

    // mappings: a Reader's modules(); they must outlive the map.
    explicit AddressMap(std::span<const ModuleRecord> mappings);

    // The context of (pid, CLOCK_MONOTONIC time).  Context 0 is "no
    // mappings at all" (an unknown pid); contexts are numbered from 1 in
    // the order they are first asked for.
    uint32_t context(int pid, int64_t time_ns);
    uint32_t context_count() const { return static_cast<uint32_t>(contexts_.size()); }

    // Index into mappings of the mapping that held address in context, or
    // kNoMapping.
    uint32_t find(uint32_t context, uint64_t address) const;
    // The module and file offset of address in context; {0, address} if
    // no mapping held it.
    CodeAddress locate(uint32_t context, uint64_t address) const;

  private:
    struct Interval {
        uint64_t start = 0, end = 0;
        int64_t load_ns = 0;
        uint32_t mapping = 0;
    };
    // Intervals sorted by start, with the running maximum of their ends,
    // so that a lookup scans back only over intervals that can hold it.
    struct Intervals {
        std::vector<Interval> list;
        std::vector<uint64_t> max_end;
        void build(std::vector<Interval> intervals);
        // The best interval holding address: the latest loaded when
        // latest, else the earliest; kNoMapping if none.
        uint32_t find(uint64_t address, bool latest) const;
    };
    struct Context {
        Intervals live;    // loaded at or before the span, not unloaded in it
        Intervals earlier; // loaded and unloaded before the span
        Intervals later;   // loaded after the span
    };
    struct Process {
        std::vector<uint32_t> mappings;  // indices of its mappings
        std::vector<int64_t> boundaries; // every load and unload time, sorted, unique
        std::vector<uint32_t> by_span;   // context of span i, 0 = not built yet
    };

    uint32_t build_context(Process &p, size_t span);

    std::span<const ModuleRecord> mappings_;
    std::unordered_map<int, uint32_t> pid_index_; // pid -> processes_[]
    std::vector<Process> processes_;
    std::vector<Context> contexts_{Context{}};
    int last_pid_ = 0;
    uint32_t last_process_ = kNoMapping;
};

} // namespace cpcprof::storage
