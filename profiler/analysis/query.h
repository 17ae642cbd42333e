// SPDX-License-Identifier: MIT
// Query: a profile aggregated for reports.  Opens a .cpcprof file (through
// Reader, so files from someone else are safe), keeps the samples that
// pass a filter, and sums their values per distinct call stack, with every
// frame named: function (C++ demangled, or "module+0xoffset" when the
// address has no symbols), module, source file and line, inline or not.
// Every command that shows costs (report, annotate, flamegraph, export,
// diff) and the GUI's models start from here.
//
// Costs: a sample carries one value per event of the run (RunInfo::events):
// the sampling event's period, and for each other request the count of its
// event during that period.  A cost is the number of samples and the sum
// of each event's values.  A function's "self" cost is that of the samples
// whose innermost frame is in it; its "total" cost that of the samples
// with the function anywhere on the stack, counted once per sample even
// when it recurses.  Off-CPU time (record --off-cpu) is one more event,
// kOffCpuEvent, last: each stretch a thread spent off the CPU adds its
// duration to that event's value on the stack it blocked in, and counts
// as no sample.  A run with off-CPU time and a CPU clock (cpu-clock or
// task-clock) has a wall-clock event too, kWallClockEvent, after the
// file's: each sample's clock value plus each stretch's off-CPU time, so
// that a thread's wall-clock cost is its whole run, on the CPU and off.
//
//   std::string error;
//   auto q = Query::open("out.cpcprof", {}, &error);
//   CallTree tree = CallTree::top_down(*q);
//
// Memory and time: one pass over the samples (~1 s per 2 M samples), each
// distinct stack located and named once; stacks are kept as a trie of
// frames (frame_nodes()), and everything computed from them (function,
// line and module costs, trees) is one walk over it, without recursion, so
// a stack of any depth costs what its rows in the file cost.  Not thread-safe; a Query is
// immutable after open(), so readers on several threads are fine.
#pragma once

#include "base/small_vector.h"
#include "storage/reader.h"
#include "storage/records.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cpcprof::analysis {

// The records of the file that a Query hands out as they are.
using storage::CodeAddress;
using storage::EventInfo;
using storage::Reader;

struct QueryFilter {
    std::optional<int> pid;
    std::optional<int> tid;
    // Sample times in ns since the run's start: [from_ns, to_ns).
    std::optional<int64_t> from_ns;
    std::optional<int64_t> to_ns;
    // Only the samples taken on this processor (a sample whose processor
    // is not known is on none).
    std::optional<int> cpu;
    // false: an inlined call is not a frame of its own; its cost goes to
    // the function it was inlined into, at the line of the inlined call.
    bool inline_frames = true;
    // Only the samples with a frame of every function named in through on
    // their stack, and with none of those named in not_through (names
    // exact, of any module; at most kMaxFunctionTests of each).
    std::vector<std::string> through, not_through;
};

inline constexpr size_t kMaxFunctionTests = 64;

// What open() keeps beside the aggregates.
struct QueryOptions {
    // Each kept sample's time, (stack, thread) pair, processor and values,
    // for kept_samples() and subset(): 16 + 8 x events bytes per sample.
    bool keep_samples = false;
};

// A function as reports name it: one per distinct (name, module).
struct FunctionInfo {
    // Demangled; without symbols "libm.so.6+0x1a2b": the start of the
    // function by its FDE when the symbolizer found one (one function, all
    // its addresses), else the address itself.
    std::string name;
    std::string module;       // the module's path; "" when no mapping held the address
    std::string file;         // a source file it has code in ("" unknown)
    bool has_symbols = false; // named by a symbol or debug information
};

// One frame of a stack: a function, and where control is in it.
struct PathFrame {
    uint32_t function = 0; // Query::functions() index
    uint32_t file = 0;     // Query::files() index; 0 = unknown
    uint32_t line = 0;     // 0 = unknown
    bool inlined = false;  // inlined into the frame above it (its caller)

    bool operator==(const PathFrame &) const = default;
};

// Samples and the sum of each event's values.
// Sums saturate at UINT64_MAX rather than wrap: a share computed from a
// saturated sum is wrong only in files whose values are already absurd
// (and refused by `cpcprof check`), never above 100 %.
struct Cost {
    // Up to four events without an allocation (base/small_vector.h).
    using Values = base::SmallVector<uint64_t, 4>;
    uint64_t samples = 0;
    Values values; // one per event

    void add(const Cost &other);
    // No sample and no value: nothing reached it (off-CPU time has values
    // without samples).
    bool empty() const {
        for (uint64_t v : values)
            if (v != 0)
                return false;
        return samples == 0;
    }
};

// a + b, or UINT64_MAX where the sum does not fit.
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    uint64_t sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

// Thrown by the builders of trees whose size does not follow from the
// file's (bottom-up and callers trees of deep, varied stacks); what()
// says what was asked and how big it would have been.  Commands report
// it and exit instead of exhausting the machine.
class TooLarge : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The event Query adds to a run with off-CPU time and a CPU clock: on-
// and off-CPU time summed per stack.
inline constexpr const char *kWallClockEvent = "wall-clock";

class Query {
  public:
    // nullptr with *error = "PATH: reason" when the file is refused or a
    // sample cannot be read.
    static std::unique_ptr<Query> open(const std::string &path, const QueryFilter &filter,
                                       std::string *error, const QueryOptions &options = {});
    ~Query();
    Query(const Query &) = delete;
    Query &operator=(const Query &) = delete;

    const Reader &reader() const;
    const QueryFilter &filter() const;
    // The run's events (RunInfo::events), then kWallClockEvent where the
    // run has one (wall_clock_event()).
    const std::vector<EventInfo> &events() const;
    // The index in events() of off-CPU time (storage::kOffCpuEvent, ns),
    // -1 when the run did not record it.  Off-CPU time adds to that
    // event's values and to no Cost::samples: a stack's off-CPU time is
    // where its threads waited, not sampled.
    int off_cpu_event() const;
    // The index in events() of kWallClockEvent, -1 when the run has no
    // off-CPU time or no CPU clock; wall_clock_source() the clock's.
    int wall_clock_event() const;
    int wall_clock_source() const;
    // How many observations cost c's value of event e rests on, for the
    // tests that tell a change from noise (share_test.h): its samples for
    // a sampled event; for off-CPU and wall-clock time, which are timed
    // rather than sampled, the samples a clock at the run's rate would
    // have taken in that time (the value / the CPU clock's period, or
    // 1 ms without one), so that a wait is as certain as the same time
    // on the CPU.
    uint64_t observations(const Cost &c, size_t e) const;
    // The event named name (exact, then case-insensitive); -1 if none.
    int event_index(const std::string &name) const;

    const std::vector<FunctionInfo> &functions() const;
    // Source file paths; [0] = "" (unknown).
    const std::vector<std::string> &files() const;
    // Functions named exactly name, or, if none, whose name contains it.
    std::vector<uint32_t> find_functions(const std::string &name) const;

    // Distinct stacks of the kept samples.  A stack's frames run from the
    // outermost (main, a thread's start routine) to the innermost.  A
    // truncated stack was cut short (depth bound, unwinder gave up): its
    // first frame is not a true root.  A sample without frames has the
    // single frame of the function "[no stack]".
    size_t stack_count() const;
    // Stack i's frames, root first, built on each call: O(its depth).
    std::vector<PathFrame> stack(size_t i) const;
    // The frame node of stack i's innermost frame (frame_nodes()).
    uint32_t stack_leaf(size_t i) const;
    bool stack_truncated(size_t i) const;
    const Cost &stack_cost(size_t i) const;

    // The stacks as a trie of frames, so that walks over every stack cost
    // what the file holds (the trie), not the sum of the stacks' depths.
    // Node 0 is the root (no frame); a node's parent has a smaller index;
    // a stack is the path from the root to its leaf.  Stacks that begin
    // with the same code share nodes (two addresses with the same function
    // and line may still be two nodes).
    struct FrameNode {
        uint32_t parent = 0;
        uint32_t depth = 0; // 1 for an outermost frame
        PathFrame frame;
    };
    const std::vector<FrameNode> &frame_nodes() const;
    // Per frame node (same index): the code address it was named from and
    // the located frame (storage/stack_locator.h) of that address.  The
    // frames one address expands into (its inlined calls, then the real
    // function) share `located`; a stack's innermost frames are those
    // sharing its leaf's `located` (the interrupted PC), the others are
    // return addresses.  {} for the root and "[no stack]".  For
    // per-instruction costs (`cpcprof annotate --disassemble`).
    struct FrameOrigin {
        CodeAddress where;
        uint32_t located = 0;
    };
    const std::vector<FrameOrigin> &frame_origins() const;

    // For keys given to frame nodes (key_of[node], kNoKey or >= keys: none;
    // key_of[0] is ignored): per key, the summed cost of the stacks with
    // that key on at least one frame, counted once per stack however often
    // it occurs.  One walk over the trie: O(frame nodes + keys).
    static constexpr uint32_t kNoKey = UINT32_MAX;
    std::vector<Cost> once_per_stack(std::span<const uint32_t> key_of, size_t keys) const;

    // Sum over every kept sample.
    const Cost &total() const;
    // Kept samples whose stack is complete (not stack_truncated()).
    uint64_t samples_complete() const;
    // The function "[truncated]" that pictures put cut stacks under (as the
    // exports do); no frame of any stack is in it.  kNoFunction when no
    // kept stack is truncated.
    static constexpr uint32_t kNoFunction = UINT32_MAX;
    uint32_t truncated_function() const;
    // Samples the filter kept / read.
    uint64_t samples_kept() const;
    uint64_t samples_read() const;
    // Samples read that say the processor they were taken on (format 5
    // on); 0: QueryFilter::cpu can keep none.
    uint64_t samples_with_cpu() const;

    // Per function (index = function), self and total.
    const std::vector<Cost> &function_self() const;
    const std::vector<Cost> &function_total() const;

    // Per thread that kept samples, in order of first appearance.
    struct ThreadCost {
        int pid = 0, tid = 0;
        std::string name;
        Cost cost;
    };
    const std::vector<ThreadCost> &threads() const;

    // The split of each stack's cost among the threads that reached it: one
    // entry per distinct (stack, thread), in order of first appearance (so
    // a thread's entries follow its samples' order of first arrival).
    struct StackThreadCost {
        uint32_t stack = 0;  // index for stack()
        uint32_t thread = 0; // index in threads()
        Cost cost;
    };
    const std::vector<StackThreadCost> &stack_thread_costs() const;

    // Paths of modules that samples reached and that have no symbols
    // (symbolized and found none).  Empty if the file was never symbolized.
    std::vector<std::string> modules_without_symbols() const;

    // Every module that kept samples reached at addresses without a name
    // (a module without symbols, or a stripped one whose symbol table lacks
    // the functions sampled), with the cost of the samples that have such
    // an address of it on their stack (once per sample): most samples
    // first, then by path.  Addresses in no module are left out.
    struct ModuleCost {
        std::string path;
        Cost cost;
    };
    std::vector<ModuleCost> modules_lacking_names() const;

    // Per source line of a function: self = samples whose innermost frame
    // is in it at that line; total = samples with a frame of it at that
    // line (once per sample).
    struct LineCost {
        uint32_t function = 0;
        uint32_t file = 0;
        uint32_t line = 0;
        Cost self, total;
    };
    // Every (function, file, line) that samples reached, unordered.
    std::vector<LineCost> line_costs() const;

    // ---- Kept samples (QueryOptions::keep_samples; else empty) ----------
    struct KeptSample {
        int64_t time_ns = 0;       // since the run's start (Reader::since_start)
        uint32_t stack_thread = 0; // index in stack_thread_costs()
        int32_t cpu = -1;          // the processor it was taken on; -1 not known
    };
    // In arrival order.
    std::span<const KeptSample> kept_samples() const;
    // Kept sample i's values, one per event (0 where the file had none).
    std::span<const uint64_t> kept_values(size_t i) const;
    // Whether kept sample i is off-CPU time (its time_ns is when the
    // thread left the CPU, its off_cpu_event() value how long it was off)
    // rather than a sample.
    bool kept_off_cpu(size_t i) const;

    // The Query that open() with a filter keeping exactly the kept samples
    // i with keep(i) would give: the same costs, stacks, threads, functions
    // (those no such sample reaches left out) and trees, in O(samples +
    // frame nodes), without reading the file again.  Needs keep_samples;
    // the result keeps its samples too (it can be narrowed again) and
    // shares this Query's Reader, which neither changes.  filter is what
    // the result's filter() says (its inline_frames is this one's).
    std::unique_ptr<Query> subset(const std::function<bool(size_t)> &keep,
                                  const QueryFilter &filter) const;

    // Per stack (stack_count()): whether it passes the function tests of
    // f (through, not_through): one walk over the trie, O(frame nodes).
    std::vector<uint8_t> stacks_passing(const QueryFilter &f) const;

  private:
    struct Impl;
    explicit Query(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// A call tree of functions with self and total costs per node.  Nodes are
// merged by function: a node is a path of functions from a root.
class CallTree {
  public:
    // Roots are the outermost frames; children are callees.  With
    // truncated_root, the stacks cut short sit under one root of
    // Query::truncated_function() instead of beside the true roots.  With
    // collapse_recursion, a call of a function from itself (f > f > f) is
    // one node: its callees hang under the outermost f.
    static CallTree top_down(const Query &q, bool truncated_root = false,
                             bool collapse_recursion = false);
    // Roots are the innermost frames; children are callers.  With
    // truncated_root, a cut stack's outermost frame has the caller
    // Query::truncated_function().
    static CallTree bottom_up(const Query &q, bool truncated_root = false);
    // The callers of fn: root fn (every sample with fn on its stack, from
    // its innermost occurrence), children its callers, and theirs.
    static CallTree callers(const Query &q, uint32_t fn);
    // The callees of fn: root fn (from its outermost occurrence), children
    // what it calls.
    static CallTree callees(const Query &q, uint32_t fn);

    struct Node {
        uint32_t parent = 0;   // 0 for a root (node 0 is the invisible root of roots)
        uint32_t function = 0; // Query::functions() index
        uint32_t depth = 0;    // 1 for a root
        bool inlined = false;  // every frame merged here was an inlined call
        Cost self, total;
        std::vector<uint32_t> children; // in order of creation
    };
    // Node 0 holds the total over everything in total and nothing else.
    const std::vector<Node> &nodes() const { return nodes_; }

    // Bound on the nodes of a bottom-up or callers tree, whose size is the
    // sum of the depths of distinct stacks in the worst case; past it the
    // builder throws TooLarge.  Top-down and callees trees have at most
    // one node per frame node and are not bounded.
    static constexpr size_t kMaxReversedNodes = size_t{1} << 20;

  private:
    explicit CallTree(std::vector<Node> nodes) : nodes_(std::move(nodes)) {}
    std::vector<Node> nodes_;
};

// The run's events as report's header and the viewer's summary name
// them: "cpu-clock (sampling, period 1000000), page-faults (counted),
// off-cpu (time off the CPU), wall-clock (cpu-clock + off-cpu)"; "none".
std::string events_text(const Query &q);

// The modules whose sampled addresses lack names, most sampled first, each
// with the share of samples on such an address: "libx.so (12.5 % of
// samples), prog (0.3 % of samples)", and of the time off the CPU where
// threads waited there ("prog (0.0 % of samples, 99.2 % of the time off
// the CPU)"); "" when every sampled address is named.  Report's header and
// record's summary both say it so.
std::string modules_lacking_names_text(const Query &q);

} // namespace cpcprof::analysis
