// SPDX-License-Identifier: MIT
// Value types of a .cpcprof profile: what the recorder hands the Writer and
// what a Reader hands back.  Plain data; no SQLite here.
//
// Clocks: RunInfo::start_ns is CLOCK_REALTIME; every other time is
// CLOCK_MONOTONIC ns, the clock of RunInfo::start_mono_ns.  The file keeps
// them relative to the run's start; the Reader gives back the values the
// Writer was given.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cpcprof::storage {

// One request of the counter set.  Its position in RunInfo::events is the
// position of its value in every sample.
struct EventInfo {
    std::string name;
    uint64_t period = 0;   // overflow period; 0 for a request that only counts
    bool sampling = false; // the request whose overflow takes samples (the set's first)

    bool operator==(const EventInfo &) const = default;
};

// The format of an opened file: its version (PRAGMA user_version) and,
// for a version made in more than one form, which one ("" for the
// version's final form).  A version older than format_version() is read
// as that one, what it lacks absent (no symbol tables in version 1, no
// notices or unsampled time before 3, no counters backend before 4).
struct FileFormat {
    int version = 0;
    std::string form;
    // The file has symbol tables (version 2 on), which `cpcprof symbolize`
    // can write; a version-1 file stays unsymbolized.
    bool symbol_tables = true;
};

struct RunInfo {
    std::vector<std::string> command;
    std::vector<EventInfo> events;
    int64_t start_ns = 0;      // CLOCK_REALTIME at the start of the run
    int64_t start_mono_ns = 0; // CLOCK_MONOTONIC at the same instant: origin of stored times
    std::string host;
    std::string kernel;
    std::string cpu_model;
    bool hw_pmu = false; // the machine had a hardware PMU
    // Which counters took the samples: libcpc's backend, "perf_event" or
    // "posix-timer" (where perf_event_open was refused); "" when the file
    // does not say (format 3).
    std::string counters;
    // Why not perf_event_open, when it was not used: the refusal libcpc
    // met, e.g. "perf_event_open refused (EPERM: a seccomp filter?)".
    std::string counters_reason;
    // How stacks were taken: record's --call-graph mode, "dwarf" (the
    // agent's own unwinder over compiled .eh_frame tables), "fp" or "none".
    std::string call_graph;
    unsigned max_depth = 0; // the recorder's bound on frames per stack

    bool operator==(const RunInfo &) const = default;
};

struct ProcessInfo {
    int pid = 0;
    int ppid = 0;
    std::vector<std::string> argv;
    std::string exe;
    int64_t start_ns = 0; // CLOCK_MONOTONIC

    bool operator==(const ProcessInfo &) const = default;
};

struct ThreadInfo {
    int pid = 0;
    int tid = 0;
    std::string name;

    bool operator==(const ThreadInfo &) const = default;
};

// One mapping of a file into a process.
struct ModuleInfo {
    int pid = 0;
    std::string path;
    std::string build_id; // lowercase hex; may be empty
    uint64_t start = 0;   // [start, end) in the process
    uint64_t end = 0;
    uint64_t file_offset = 0;
    int64_t load_ns = 0; // CLOCK_MONOTONIC

    bool operator==(const ModuleInfo &) const = default;
};

// One sample as the recorder has it.  The spans are only read during
// Writer::add_sample.
struct Sample {
    int pid = 0;
    int tid = 0;
    int64_t time_ns = 0;  // CLOCK_MONOTONIC
    bool complete = true; // false: the stack was cut short (depth bound, unwinder gave up)
    std::span<const uint64_t> frames; // leaf first: [0] the interrupted PC, then return addresses
    std::span<const uint64_t> values; // one per event, in RunInfo::events order
    int cpu = -1; // the processor it was taken on; -1 not known (the agent's samples)
};

// The event that off-CPU time is recorded as (record --off-cpu): the last
// of RunInfo::events, period 0, not sampling, unit ns.  It is no request
// of the counter set: every sample's value for it is 0, and the time is
// carried by OffCpu rows.
inline constexpr const char *kOffCpuEvent = "off-cpu";

// Time a thread spent off the CPU, as the recorder has it: one stretch
// from its switch out to its switch in, or the sum of several too short to
// be kept one by one (record --off-cpu-min).  The span is only read
// during Writer::add_off_cpu.
struct OffCpu {
    int pid = 0;
    int tid = 0;
    int64_t time_ns = 0;      // CLOCK_MONOTONIC: it left the CPU (the first's, for a sum)
    uint64_t duration_ns = 0; // until it ran again (the sum, for several)
    uint64_t stretches = 1;   // how many stretches duration_ns sums
    // Taken off the CPU while it could still run (preempted), rather than
    // blocked waiting for something.
    bool preempted = false;
    bool complete = true;             // false: the stack was cut short
    std::span<const uint64_t> frames; // leaf first: where it blocked; empty if not known
};

// Sample accounting; see balanced().
struct Accounting {
    uint64_t taken = 0;   // overflows the sampler saw
    uint64_t stored = 0;  // samples that reached the recorder
    uint64_t dropped = 0; // samples lost (full ring, unwinder failure, ...)
    // CPU time (ns) of threads that could not be sampled at all (no
    // counters): not in taken.
    uint64_t unsampled_ns = 0;

    // The invariant every profile keeps: taken == stored + dropped.
    bool balanced() const { return taken == stored + dropped; }
    bool operator==(const Accounting &) const = default;
};

// A message about a process, as the recorder printed it (notice table).
struct Notice {
    int pid = 0;
    int64_t time_ns = 0; // CLOCK_MONOTONIC
    std::string text;
    bool operator==(const Notice &) const = default;
};

// ---- Reader results -------------------------------------------------------

struct ProcessRecord {
    ProcessInfo info;
    std::optional<int64_t> end_ns; // CLOCK_MONOTONIC; empty while it ran at the end
    std::optional<int> exit_status;
    std::optional<int> killed_by_signal;

    bool operator==(const ProcessRecord &) const = default;
};

struct ModuleRecord {
    ModuleInfo info;
    std::optional<int64_t> unload_ns; // CLOCK_MONOTONIC; empty while mapped at the end
    int64_t module_id = 0; // the file's number for (path, build_id); equal ids = same file
    // Whether the symbolizer found symbols in the file; empty: not symbolized.
    std::optional<bool> has_symbols;

    bool operator==(const ModuleRecord &) const = default;
};

// An OffCpu row as the Reader gives it back.
struct OffCpuRecord {
    int pid = 0;
    int tid = 0;
    int64_t time_ns = 0; // CLOCK_MONOTONIC
    uint64_t duration_ns = 0;
    uint64_t stretches = 1;
    bool preempted = false;
    bool complete = true;
    uint64_t stack = 0; // the trie node of its leaf frame; 0 for no frames

    bool operator==(const OffCpuRecord &) const = default;
};

// A node of the stack trie.  Id 0 is the virtual root; a node's parent is
// the next frame outwards (its caller).
struct StackNode {
    uint64_t parent = 0;
    uint64_t address = 0;

    bool operator==(const StackNode &) const = default;
};

// One sample as a Reader gives it.  The spans are valid during the
// callback only.
struct StoredSample {
    int pid = 0;
    int tid = 0;
    int64_t time_ns = 0; // CLOCK_MONOTONIC
    bool complete = true;
    uint64_t stack = 0;               // trie node of frames[0]; 0 = no frames; equal = same stack
    std::span<const uint64_t> frames; // leaf first, exactly as written
    std::span<const uint64_t> values;
    int cpu = -1; // the processor it was taken on; -1 not known (or a file before format 5)
};

// ---- Symbols ---------------------------------------------------------------
//
// The symbolizer resolves code addresses after the recording; storage keeps
// its answers per (module, file offset) and knows nothing of the symbolizer
// itself (the recorder converts its frames into SymbolFrame).

// One frame of a resolved address.  An address yields a chain of them,
// innermost first: the inlined calls (inlined = true), innermost inline
// first, then the function the code really belongs to.
struct SymbolFrame {
    std::string function; // demangled; empty = unknown
    std::string file;     // source file; empty = unknown
    int line = 0;         // 0 = unknown
    bool inlined = false; // inlined into the next frame of the chain

    bool operator==(const SymbolFrame &) const = default;
};

// Where a code address lies: a module's file and the offset in that file
// (address - mapping start + mapping file offset), the key of the symbol
// tables.  module_id 0: no mapping held the address; offset is then the
// address itself (kernel, JIT code, a stack the unwinder got wrong).
struct CodeAddress {
    int64_t module_id = 0;
    uint64_t offset = 0;

    bool operator==(const CodeAddress &) const = default;
    auto operator<=>(const CodeAddress &) const = default;
};

// One address that stacks reach, for the symbolizer (SymbolWriter::addresses).
// The mapping is one place where the module held the address (the first
// mapping, by id, among all processes and times that reached it), enough to
// load the module at its bias.
struct AddressToResolve {
    int64_t module_id = 0;
    std::string path;     // the module's file
    std::string build_id; // lowercase hex; may be empty
    uint64_t offset = 0;  // file offset: the key to store the answer under
    int pid = 0;          // a process that had it mapped
    uint64_t mapping_start = 0, mapping_end = 0, mapping_file_offset = 0;
    // How samples used it: a return address (look it up at offset - 1, in
    // the call) and/or an interrupted PC.  When both are set, it is
    // resolved both ways: SymbolWriter::add() takes the PC's answer and
    // add_return() the return address's.
    bool return_address = false;
    bool pc = false;

    bool operator==(const AddressToResolve &) const = default;
};

} // namespace cpcprof::storage
