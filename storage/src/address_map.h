// SPDX-License-Identifier: MIT
// AddressMap: which mapping held a code address of a process at a time,
// by the rule in the format (schema.cpp, mapping): the mapping live then;
// else the last one unloaded before; else the first one loaded after.
//
// Built for many lookups: a process's time is cut at every load and unload
// of its mappings into spans in which its mappings do not change; a
// context is one (process, span), numbered the first time a lookup falls
// in it.  Same context, same answers: callers resolve each (context,
// stack node) once.
//
// Memory and time follow the number of mappings M, however they overlap:
// per process, one segment tree over the address ranges holds each
// mapping in O(log M) nodes, each node's mappings sorted by load time with
// a sparse table of their unload times; a lookup visits O(log M) nodes,
// O(log M) each.  (Building every span's own sorted list of mappings, as
// before, took O(M^2): 3.4 GB for a 741 KB file of overlapping mappings.)
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
    struct Entry {
        int64_t load_ns = 0;
        int64_t unload_ns = 0; // INT64_MAX: never unloaded
        uint32_t mapping = 0;
    };
    // A process's mappings by address: leaf i is [cuts[i], cuts[i+1]); node
    // k of the (bottom-up, iterative) segment tree lists the mappings that
    // cover its whole range and not its parent's, by (load_ns, mapping).
    struct Index {
        std::vector<uint64_t> cuts;
        std::vector<std::vector<Entry>> lists; // by node, [1, 2 * leaves)
        std::vector<std::vector<int64_t>>
            sparse; // by node: max unload_ns of 2^j entries from i, level j at j * size
        void build(std::span<const ModuleRecord> all, const std::vector<uint32_t> &mappings);
        // The rule of the format at time t (loaded_before: some load <= t
        // exists, i.e. the span is not the first).
        uint32_t find(uint64_t address, bool loaded_before, int64_t t) const;
    };
    struct Context {
        uint32_t process = 0;
        bool loaded_before = false; // not the span before every load
        int64_t t = 0;              // the span's start
    };
    struct Process {
        std::vector<uint32_t> mappings;  // indices of its mappings
        std::vector<int64_t> boundaries; // every load and unload time, sorted, unique
        std::vector<uint32_t> by_span;   // context of span i, 0 = not numbered yet
        Index index;
        bool indexed = false;
    };

    std::span<const ModuleRecord> mappings_;
    std::unordered_map<int, uint32_t> pid_index_; // pid -> processes_[]
    std::vector<Process> processes_;
    std::vector<Context> contexts_{Context{}};
    int last_pid_ = 0;
    uint32_t last_process_ = kNoMapping;
};

} // namespace cpcprof::storage
