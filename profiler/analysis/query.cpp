// SPDX-License-Identifier: MIT
// Query and CallTree (storage/include/storage/query.h).
//
// One pass over the samples: each kept sample's stack is located
// (StackLocator: the same code in any process or at any time is one
// located node) and its cost added to its (distinct stack, thread) pair;
// a distinct stack is keyed by (located leaf, truncated).  A stack is
// named the first time it is seen: every located node expands, once, into
// its symbol chain (inlined calls, then the real function) or, without
// symbols, one "module+0xoffset" frame.  A stack's leaf is named by its
// answer as a PC, the other frames by their answers as return addresses
// (StackLocator's leaf_chain and chain); where the two differ, the leaf's
// frames are the stack's own.  Stack, thread and total costs are sums of
// the pairs.
// Everything else (function and line costs, trees) is computed from the
// distinct stacks, so its cost does not grow with the number of samples.
#include "profiler/analysis/query.h"
#include "base/paths.h"

#include "base/flat_map.h"
#include "profiler/analysis/event_units.h"
#include "storage/sample_values.h"
#include "storage/stack_locator.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <string_view>
#include <unordered_set>

namespace cpcprof::analysis {

// The file's records, read through storage's Reader and StackLocator.
using namespace storage;

void Cost::add(const Cost &other) {
    samples = saturating_add(samples, other.samples);
    if (values.size() < other.values.size())
        values.resize(other.values.size());
    for (size_t i = 0; i < other.values.size(); ++i)
        values[i] = saturating_add(values[i], other.values[i]);
}

namespace {

constexpr const char kNoStack[] = "[no stack]";
// Off-CPU time whose stack the recorder did not read: the stack's one frame.
constexpr const char kWaitingForCpu[] = "[waiting for a CPU]";       // preempted
constexpr const char kShortWaits[] = "[short waits]";                // under --off-cpu-min
constexpr const char kBlockedUnread[] = "[blocked, stack not read]"; // woke before it was read
constexpr const char kTruncated[] = "[truncated]";

using base::base_name;

std::string hex_offset(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "+0x%" PRIx64, v);
    return buf;
}

// Whether name is "FILE+0xOFFSET" with FILE module's file name: a name the
// symbolizer made from a stripped module's FDE, not a symbol (schema.cpp,
// "symbol").
bool is_offset_name(const std::string &name, const std::string &module) {
    const std::string file = base_name(module);
    if (module.empty() || name.size() <= file.size() + 3 ||
        name.compare(0, file.size(), file) != 0 || name.compare(file.size(), 3, "+0x") != 0)
        return false;
    return std::all_of(name.begin() + std::ptrdiff_t(file.size() + 3), name.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

struct ModuleFacts {
    std::string path;
    std::optional<bool> has_symbols;
};

} // namespace

struct Query::Impl {
    // Shared with the subsets made from this Query (subset()).
    std::shared_ptr<const Reader> reader;
    QueryFilter filter;
    bool keep_samples = false;
    std::vector<KeptSample> samples;
    std::vector<uint64_t> sample_values; // nevents per kept sample
    size_t nevents = 0;
    std::vector<EventInfo> events;                    // the run's, then kWallClockEvent's
    std::unordered_map<int64_t, ModuleFacts> modules; // by module_id
    std::unordered_set<int64_t> modules_reached;

    std::vector<FunctionInfo> functions;
    // Functions by a hash of (name, module): the first function with that
    // hash, and per function the next with the same hash (kNoFunction: none).
    // No key strings: a map keyed by copies of name and module took two
    // thirds of subset() and a tenth of open() on 91,000 functions.
    base::FlatMap function_of_hash;
    std::vector<uint32_t> same_hash_next;

    struct Stack {
        uint32_t leaf = 0; // frame node
        bool truncated = false;
    };
    std::vector<FrameNode> fnodes{FrameNode{}};
    std::vector<FrameOrigin> origins{FrameOrigin{}}; // per frame node
    std::vector<Stack> stacks;
    std::vector<Cost> stack_costs;

    Cost total;
    uint64_t kept = 0, read = 0, complete = 0, with_cpu = 0;
    int off_cpu_event = -1; // Reader::off_cpu_event()
    int wall_event = -1;    // kWallClockEvent: wall_source's + off_cpu_event's values
    int wall_source = -1;
    uint32_t truncated_fn = kNoFunction;
    std::vector<Cost> fself, ftotal;
    std::vector<ThreadCost> threads;
    std::vector<StackThreadCost> stack_threads;

    uint32_t function_id(const std::string &name, const std::string &module, bool has_symbols,
                         const std::string &file) {
        const std::hash<std::string_view> hash;
        const uint64_t h = hash(name) * 0x9e3779b97f4a7c15ULL ^ hash(module);
        uint32_t last = kNoFunction;
        if (const uint32_t *hit = function_of_hash.find(h)) {
            for (uint32_t f = *hit; f != kNoFunction; f = same_hash_next[f]) {
                if (functions[f].name == name && functions[f].module == module) {
                    if (functions[f].file.empty() && !file.empty())
                        functions[f].file = file;
                    return f;
                }
                last = f;
            }
        }
        const uint32_t id = uint32_t(functions.size());
        functions.push_back({name, module, file, has_symbols});
        same_hash_next.push_back(kNoFunction);
        if (last == kNoFunction)
            function_of_hash.insert(h, id);
        else
            same_hash_next[last] = id;
        return id;
    }

    // Each located node's own frames (its symbol chain, innermost first,
    // or one "module+0xoffset" frame), expanded once: stacks share nodes.
    std::vector<PathFrame> node_frames;
    std::vector<std::pair<uint32_t, uint32_t>> node_span; // first, count; count 0 = not yet

    std::span<const PathFrame> expand(const LocatedNode &node, uint32_t id) {
        if (id >= node_span.size())
            node_span.resize(id + 1, {0, 0});
        if (node_span[id].second == 0)
            node_span[id] = append_frames(node, node.chain);
        return {node_frames.data() + node_span[id].first, node_span[id].second};
    }

    // Appends the frames of chain (of node's address) to node_frames:
    // {first, count}.
    std::pair<uint32_t, uint32_t> append_frames(const LocatedNode &node, uint32_t chain_id) {
        const SymbolTable &syms = reader->symbol_table();
        const ModuleFacts *mod = nullptr;
        if (node.where.module_id != 0) {
            modules_reached.insert(node.where.module_id);
            auto it = modules.find(node.where.module_id);
            if (it != modules.end())
                mod = &it->second;
        }
        const std::string module = mod ? mod->path : std::string();
        const uint32_t first = uint32_t(node_frames.size());
        std::span<const FrameRef> chain = syms.frames(chain_id);
        if (!inline_frames_wanted() && !chain.empty())
            chain = chain.subspan(chain.size() - 1);
        for (const FrameRef &f : chain) {
            const std::string &fn = syms.functions()[f.function];
            if (fn.empty())
                continue;
            uint32_t fid =
                function_id(fn, module, !is_offset_name(fn, module), syms.files()[f.file]);
            node_frames.push_back({fid, f.file, f.line, f.inlined && inline_frames_wanted()});
        }
        if (node_frames.size() == first) {
            std::string name = (mod ? base_name(module) : std::string("[unknown]")) +
                               hex_offset(node.where.offset);
            node_frames.push_back({function_id(name, module, false, ""), 0, 0, false});
        }
        return {first, uint32_t(node_frames.size() - first)};
    }

    // The frame node of located node n's innermost frame: its own frames
    // below that of its caller, each located node expanded once.  Walks
    // up to the first node done, then down: no recursion, O(new frames).
    std::vector<uint32_t> fnode_of; // located node -> frame node; 0 = not yet
    std::vector<uint32_t> up;       // scratch
    uint32_t frame_node(const StackLocator &loc, uint32_t n) {
        const auto &nodes = loc.nodes();
        if (fnode_of.size() < nodes.size())
            fnode_of.resize(nodes.size(), 0);
        up.clear();
        uint32_t at = n;
        for (; at != 0 && fnode_of[at] == 0; at = nodes[at].parent)
            up.push_back(at);
        uint32_t base = at == 0 ? 0 : fnode_of[at];
        for (auto it = up.rbegin(); it != up.rend(); ++it) {
            std::span<const PathFrame> own = expand(nodes[*it], *it); // innermost first
            for (size_t k = own.size(); k-- > 0;)
                base = push_frame(base, own[k], {nodes[*it].where, *it});
            fnode_of[*it] = base;
        }
        return base;
    }
    uint32_t push_frame(uint32_t parent, const PathFrame &f, const FrameOrigin &origin = {}) {
        fnodes.push_back({parent, fnodes[parent].depth + 1, f});
        origins.push_back(origin);
        return uint32_t(fnodes.size() - 1);
    }
    uint32_t no_stack = 0; // the frame node of "[no stack]", once made

    // Adds located node n as a new stack.
    void name_stack(const StackLocator &loc, uint32_t n, bool truncated) {
        uint32_t leaf;
        if (n == 0) {
            if (no_stack == 0)
                no_stack = push_frame(0, {function_id(kNoStack, "", false, ""), 0, 0, false});
            leaf = no_stack;
        } else if (const LocatedNode &node = loc.nodes()[n]; node.leaf_chain == node.chain) {
            leaf = frame_node(loc, n);
        } else { // the PC's own answer differs from its answer as a caller
            leaf = frame_node(loc, node.parent);
            auto [first, count] = append_frames(node, node.leaf_chain);
            for (uint32_t k = count; k-- > 0;)
                leaf = push_frame(leaf, node_frames[first + k], {node.where, n});
        }
        stacks.push_back({leaf, truncated});
        stack_costs.push_back(Cost{0, std::vector<uint64_t>(nevents)});
    }

    // The stack of the one frame of the function name (no module); made
    // once per name.
    std::map<std::string, uint32_t, std::less<>> pseudo_stacks;
    uint32_t pseudo_stack(const char *name) {
        auto it = pseudo_stacks.find(std::string_view(name));
        if (it != pseudo_stacks.end())
            return it->second;
        uint32_t stack = uint32_t(stacks.size());
        stacks.push_back({push_frame(0, {function_id(name, "", false, ""), 0, 0, false}), false});
        stack_costs.push_back(Cost{0, std::vector<uint64_t>(nevents)});
        pseudo_stacks.emplace(name, stack);
        return stack;
    }

    bool inline_frames_wanted() const { return filter.inline_frames; }

    bool keep(const StoredSample &s) const {
        if (filter.pid && s.pid != *filter.pid)
            return false;
        if (filter.tid && s.tid != *filter.tid)
            return false;
        if (filter.cpu && s.cpu != *filter.cpu)
            return false;
        int64_t t = reader->since_start(s.time_ns);
        if (filter.from_ns && t < *filter.from_ns)
            return false;
        if (filter.to_ns && t >= *filter.to_ns)
            return false;
        return true;
    }

    void keep_sample(int64_t time_ns, uint32_t stack_thread, int32_t cpu,
                     std::span<const uint64_t> values) {
        samples.push_back({time_ns, stack_thread, cpu});
        size_t nv = std::min(values.size(), nevents);
        sample_values.insert(sample_values.end(), values.begin(), values.begin() + nv);
        sample_values.resize(sample_values.size() + (nevents - nv), 0);
    }

    // A sample's or off-CPU row's value of the wall-clock event: its
    // clock's and its off-CPU time's (one of the two is 0).
    uint64_t wall_value(std::span<const uint64_t> values) const {
        uint64_t v = 0;
        for (int e : {wall_source, off_cpu_event})
            if (e >= 0 && size_t(e) < values.size())
                v = saturating_add(v, values[size_t(e)]);
        return v;
    }

    // Stack, thread and total costs from the (stack, thread) pairs, the
    // complete samples, "[truncated]", function costs: the Query made.
    static std::unique_ptr<Query> finish(std::unique_ptr<Impl> impl);
    // subset()'s frame nodes and functions: those the stacks reach.
    void compact_from(const Impl &a);

    void sum_functions(const Query &q) {
        fself.assign(functions.size(), Cost{0, std::vector<uint64_t>(nevents)});
        for (size_t i = 0; i < stacks.size(); ++i)
            fself[fnodes[stacks[i].leaf].frame.function].add(stack_costs[i]);
        std::vector<uint32_t> key(fnodes.size());
        for (size_t v = 1; v < fnodes.size(); ++v)
            key[v] = fnodes[v].frame.function;
        ftotal = q.once_per_stack(key, functions.size());
    }
};

Query::Query(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Query::~Query() = default;

std::unique_ptr<Query> Query::open(const std::string &path, const QueryFilter &filter,
                                   std::string *error, const QueryOptions &options) {
    if (filter.through.size() > kMaxFunctionTests ||
        filter.not_through.size() > kMaxFunctionTests) {
        *error = path + ": at most " + std::to_string(kMaxFunctionTests) +
                 " functions to keep or leave out";
        return nullptr;
    }
    if (!filter.through.empty() || !filter.not_through.empty()) {
        // Stacks are named as samples are read: the function tests narrow
        // the samples of the other tests once every stack has its names.
        QueryFilter rest = filter;
        rest.through.clear();
        rest.not_through.clear();
        auto all = open(path, rest, error, QueryOptions{true});
        if (!all)
            return nullptr;
        std::vector<uint8_t> pass = all->stacks_passing(filter);
        const auto &pairs = all->stack_thread_costs();
        const auto samples = all->kept_samples();
        return all->subset(
            [&](size_t i) { return pass[pairs[samples[i].stack_thread].stack] != 0; }, filter);
    }
    auto impl = std::make_unique<Impl>();
    impl->reader = Reader::open(path, error);
    if (!impl->reader)
        return nullptr;
    impl->filter = filter;
    impl->keep_samples = options.keep_samples;
    const Reader &r = *impl->reader;
    impl->events = r.run().events;
    impl->off_cpu_event = r.off_cpu_event();
    if (impl->off_cpu_event >= 0) {
        for (size_t e = 0; e < impl->events.size(); ++e)
            if (int(e) != impl->off_cpu_event && is_time_event(impl->events[e].name)) {
                impl->wall_source = int(e);
                impl->wall_event = int(impl->events.size());
                impl->events.push_back({kWallClockEvent, 0, false});
                break;
            }
    }
    impl->nevents = impl->events.size();
    impl->total.values.assign(impl->nevents, 0);
    for (const ModuleRecord &m : r.modules()) {
        ModuleFacts &f = impl->modules[m.module_id];
        f.path = m.info.path;
        f.has_symbols = m.has_symbols;
    }

    // Per sample: the located stack, then one cost per (stack, thread);
    // stack, thread and total costs are summed from those afterwards.
    StackLocator loc(r);
    base::FlatMap leaf_of;         // (context, trie node, truncated) -> stack
    base::FlatMap stack_of;        // located leaf * 2 + truncated -> stack
    base::FlatMap thread_of;       // pid << 32 | tid -> thread
    base::FlatMap stack_thread_of; // stack << 32 | thread -> stack_threads
    // Per (stack, thread): samples, then the sum of each event's values.
    std::vector<uint64_t> pair_sums;
    const size_t width = 1 + impl->nevents;
    std::unordered_map<uint64_t, std::string> thread_names;
    for (const ThreadInfo &t : r.threads())
        thread_names.emplace(uint64_t(uint32_t(t.pid)) << 32 | uint32_t(t.tid), t.name);
    Impl &q = *impl;
    if (q.keep_samples) {
        q.samples.reserve(r.sample_count());
        q.sample_values.reserve(r.sample_count() * q.nevents);
    }
    uint64_t last_tkey = 0;
    uint32_t last_thread = UINT32_MAX;
    uint64_t impossible = 0;
    std::string first_impossible;
    // A sample's stack: by its trie node in its context, once located and
    // named (the locator's memo is per node of the trie, this per leaf).
    auto stack_of_sample = [&](const StoredSample &s) {
        const uint32_t c = loc.context(s.pid, s.time_ns);
        const bool cacheable = c < (uint32_t{1} << 23) && s.stack < (uint64_t{1} << 40);
        const uint64_t lkey = uint64_t(c) << 41 | s.stack << 1 | (s.complete ? 0 : 1);
        if (const uint32_t *hit = cacheable ? leaf_of.find(lkey) : nullptr)
            return *hit;
        uint32_t n = loc.locate_in(c, s.stack);
        uint64_t key = uint64_t(n) * 2 + (s.complete ? 0 : 1);
        uint32_t stack;
        if (const uint32_t *hit = stack_of.find(key)) {
            stack = *hit;
        } else {
            stack = uint32_t(q.stacks.size());
            stack_of.insert(key, stack);
            q.name_stack(loc, n, !s.complete);
        }
        if (cacheable)
            leaf_of.insert(lkey, stack);
        return stack;
    };
    // A kept sample (samples 1) or off-CPU row (samples 0) into its
    // (stack, thread) pair's sums.
    std::vector<uint64_t> wall_values; // its values with the wall-clock event's
    auto add = [&](const StoredSample &s, uint64_t samples, uint32_t stack) {
        uint64_t tkey = uint64_t(uint32_t(s.pid)) << 32 | uint32_t(s.tid);
        if (last_thread == UINT32_MAX || tkey != last_tkey) {
            if (const uint32_t *hit = thread_of.find(tkey)) {
                last_thread = *hit;
            } else {
                last_thread = uint32_t(q.threads.size());
                thread_of.insert(tkey, last_thread);
                q.threads.push_back(
                    {s.pid, s.tid, thread_names[tkey], Cost{0, std::vector<uint64_t>(q.nevents)}});
            }
            last_tkey = tkey;
        }
        uint64_t stkey = uint64_t(stack) << 32 | last_thread;
        uint32_t st;
        if (const uint32_t *hit = stack_thread_of.find(stkey)) {
            st = *hit;
        } else {
            st = uint32_t(q.stack_threads.size());
            stack_thread_of.insert(stkey, st);
            q.stack_threads.push_back({stack, last_thread, {}});
            pair_sums.resize(pair_sums.size() + width, 0);
        }
        uint64_t *sum = &pair_sums[size_t(st) * width];
        sum[0] = saturating_add(sum[0], samples);
        size_t nv = std::min(s.values.size(), q.nevents);
        for (size_t e = 0; e < nv; ++e)
            sum[1 + e] = saturating_add(sum[1 + e], s.values[e]);
        std::span<const uint64_t> values = s.values;
        if (q.wall_event >= 0) {
            wall_values.assign(s.values.begin(), s.values.end());
            wall_values.resize(q.nevents, 0);
            wall_values[size_t(q.wall_event)] = q.wall_value(s.values);
            sum[1 + size_t(q.wall_event)] =
                saturating_add(sum[1 + size_t(q.wall_event)], wall_values[size_t(q.wall_event)]);
            values = wall_values;
        }
        if (q.keep_samples)
            q.keep_sample(r.since_start(s.time_ns), st, s.cpu, values);
    };
    bool ok = r.for_each_sample(
        [&](const StoredSample &s) {
            ++q.read;
            q.with_cpu += s.cpu >= 0 ? 1 : 0;
            std::string why = impossible_values(r.run(), s.values);
            if (!why.empty() && impossible++ == 0)
                first_impossible = "sample " + std::to_string(q.read) + " (pid " +
                                   std::to_string(s.pid) + ", tid " + std::to_string(s.tid) +
                                   "): " + why;
            if (!q.keep(s))
                return;
            ++q.kept;
            add(s, 1, stack_of_sample(s));
        },
        error, Reader::Frames::skip);
    // Off-CPU time: its event's value, no sample; a row of no time adds
    // nothing (and would read as a sample in kept_off_cpu()).
    if (ok && q.off_cpu_event >= 0) {
        std::vector<uint64_t> values(r.run().events.size(), 0);
        for (const storage::OffCpuRecord &o : r.off_cpu()) {
            StoredSample s;
            s.pid = o.pid;
            s.tid = o.tid;
            s.time_ns = o.time_ns;
            s.complete = o.complete;
            s.stack = o.stack;
            values[size_t(q.off_cpu_event)] = o.duration_ns;
            s.values = values;
            if (o.duration_ns == 0 || !q.keep(s))
                continue;
            add(s, 0,
                o.stack != 0      ? stack_of_sample(s)
                : o.preempted     ? q.pseudo_stack(kWaitingForCpu)
                : o.stretches > 1 ? q.pseudo_stack(kShortWaits)
                                  : q.pseudo_stack(kBlockedUnread));
        }
    }
    for (size_t st = 0; st < q.stack_threads.size(); ++st) {
        const uint64_t *sum = &pair_sums[st * width];
        q.stack_threads[st].cost = Cost{sum[0], std::vector<uint64_t>(sum + 1, sum + width)};
    }
    if (!ok) {
        *error = path + ": " + *error;
        return nullptr;
    }
    if (impossible != 0) {
        *error = path + ": " + std::to_string(impossible) +
                 (impossible == 1 ? " sample has values" : " samples have values") +
                 " no recording produces; the first, " + first_impossible +
                 " (cpcprof check lists the file's problems)";
        return nullptr;
    }
    q.fnode_of = {};
    q.up = {};
    return Impl::finish(std::move(impl));
}

std::vector<uint8_t> Query::stacks_passing(const QueryFilter &f) const {
    const std::vector<FunctionInfo> &fns = functions();
    // Per function: the bit of each through name it answers to, and
    // whether a not_through name names it.
    std::vector<uint64_t> bit(fns.size(), 0);
    std::vector<uint8_t> excluded(fns.size(), 0);
    for (size_t i = 0; i < fns.size(); ++i) {
        for (size_t k = 0; k < f.through.size() && k < kMaxFunctionTests; ++k)
            if (fns[i].name == f.through[k])
                bit[i] |= uint64_t{1} << k;
        for (const std::string &n : f.not_through)
            if (fns[i].name == n)
                excluded[i] = 1;
    }
    const size_t wanted_count = std::min(f.through.size(), kMaxFunctionTests);
    const uint64_t wanted = wanted_count == 64 ? ~uint64_t{0} : (uint64_t{1} << wanted_count) - 1;
    const std::vector<FrameNode> &nodes = frame_nodes();
    std::vector<uint64_t> seen(nodes.size(), 0);
    std::vector<uint8_t> bad(nodes.size(), 0);
    for (size_t v = 1; v < nodes.size(); ++v) { // a parent precedes its children
        uint32_t fn = nodes[v].frame.function, up = nodes[v].parent;
        seen[v] = seen[up] | (fn < bit.size() ? bit[fn] : 0);
        bad[v] = bad[up] | (fn < excluded.size() ? excluded[fn] : 0);
    }
    std::vector<uint8_t> pass(stack_count());
    for (size_t i = 0; i < pass.size(); ++i) {
        uint32_t leaf = stack_leaf(i);
        pass[i] = (seen[leaf] & wanted) == wanted && bad[leaf] == 0;
    }
    return pass;
}

std::unique_ptr<Query> Query::Impl::finish(std::unique_ptr<Impl> impl) {
    Impl &q = *impl;
    for (const StackThreadCost &st : q.stack_threads) {
        q.stack_costs[st.stack].add(st.cost);
        q.threads[st.thread].cost.add(st.cost);
        q.total.add(st.cost);
    }
    for (size_t i = 0; i < q.stacks.size(); ++i) {
        if (!q.stacks[i].truncated)
            q.complete += q.stack_costs[i].samples;
        else if (q.truncated_fn == kNoFunction)
            q.truncated_fn = q.function_id(kTruncated, "", false, "");
    }
    auto query = std::unique_ptr<Query>(new Query(std::move(impl)));
    query->impl_->sum_functions(*query);
    return query;
}

std::span<const Query::KeptSample> Query::kept_samples() const {
    return impl_->samples;
}

std::span<const uint64_t> Query::kept_values(size_t i) const {
    return {impl_->sample_values.data() + i * impl_->nevents, impl_->nevents};
}

bool Query::kept_off_cpu(size_t i) const {
    return impl_->off_cpu_event >= 0 && kept_values(i)[size_t(impl_->off_cpu_event)] != 0;
}

int Query::off_cpu_event() const {
    return impl_->off_cpu_event;
}

int Query::wall_clock_event() const {
    return impl_->wall_event;
}

int Query::wall_clock_source() const {
    return impl_->wall_source;
}

uint64_t Query::observations(const Cost &c, size_t e) const {
    const Impl &q = *impl_;
    if ((int(e) != q.off_cpu_event && int(e) != q.wall_event) || e >= c.values.size())
        return c.samples;
    uint64_t grain = 1'000'000;
    for (const EventInfo &ev : q.events)
        if (ev.sampling && ev.period != 0 && is_time_event(ev.name)) {
            grain = ev.period;
            break;
        }
    return c.values[e] / grain;
}

// The kept samples' (stack, thread) pairs, stacks and threads are renumbered
// in the order the samples first reach them, as open() numbers them.
std::unique_ptr<Query> Query::subset(const std::function<bool(size_t)> &keep,
                                     const QueryFilter &filter) const {
    constexpr uint32_t kNone = UINT32_MAX;
    const Impl &a = *impl_;
    auto impl = std::make_unique<Impl>();
    Impl &b = *impl;
    b.reader = a.reader;
    b.filter = filter;
    b.filter.inline_frames = a.filter.inline_frames;
    b.keep_samples = true;
    b.nevents = a.nevents;
    b.events = a.events;
    b.off_cpu_event = a.off_cpu_event;
    b.wall_event = a.wall_event;
    b.wall_source = a.wall_source;
    b.modules = a.modules;
    b.read = a.read;
    b.with_cpu = a.with_cpu;
    b.total.values.assign(b.nevents, 0);
    const Cost zero{0, std::vector<uint64_t>(b.nevents)};
    std::vector<uint32_t> st_map(a.stack_threads.size(), kNone);
    std::vector<uint32_t> stack_map(a.stacks.size(), kNone), thread_map(a.threads.size(), kNone);
    for (size_t i = 0; i < a.samples.size(); ++i) {
        if (!keep(i))
            continue;
        const bool off_cpu = kept_off_cpu(i);
        b.kept += off_cpu ? 0 : 1;
        const KeptSample &s = a.samples[i];
        uint32_t &st = st_map[s.stack_thread];
        if (st == kNone) {
            const StackThreadCost &old = a.stack_threads[s.stack_thread];
            uint32_t &stack = stack_map[old.stack];
            if (stack == kNone) {
                stack = uint32_t(b.stacks.size());
                b.stacks.push_back(a.stacks[old.stack]);
                b.stack_costs.push_back(zero);
            }
            uint32_t &thread = thread_map[old.thread];
            if (thread == kNone) {
                thread = uint32_t(b.threads.size());
                const ThreadCost &t = a.threads[old.thread];
                b.threads.push_back({t.pid, t.tid, t.name, zero});
            }
            st = uint32_t(b.stack_threads.size());
            b.stack_threads.push_back({stack, thread, zero});
        }
        Cost &c = b.stack_threads[st].cost;
        c.samples = saturating_add(c.samples, off_cpu ? 0 : 1);
        std::span<const uint64_t> values = kept_values(i);
        for (size_t e = 0; e < b.nevents; ++e)
            c.values[e] = saturating_add(c.values[e], values[e]);
        b.keep_sample(s.time_ns, st, s.cpu, values);
    }
    b.compact_from(a);
    return Impl::finish(std::move(impl));
}

void Query::Impl::compact_from(const Impl &a) {
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> fmap(a.fnodes.size(), kNone);
    fmap[0] = 0;
    for (const Stack &st : stacks)
        for (uint32_t v = st.leaf; fmap[v] == kNone; v = a.fnodes[v].parent)
            fmap[v] = 0; // reached; numbered below
    std::vector<uint32_t> fn_map(a.functions.size(), kNone);
    std::unordered_set<std::string> module_paths;
    for (size_t v = 1; v < a.fnodes.size(); ++v) {
        if (fmap[v] == kNone)
            continue;
        FrameNode n = a.fnodes[v];
        n.parent = fmap[n.parent];
        uint32_t &f = fn_map[n.frame.function];
        if (f == kNone) {
            const FunctionInfo &info = a.functions[n.frame.function];
            f = function_id(info.name, info.module, info.has_symbols, info.file);
            if (!info.module.empty())
                module_paths.insert(info.module);
        }
        n.frame.function = f;
        fmap[v] = uint32_t(fnodes.size());
        fnodes.push_back(n);
    }
    for (Stack &st : stacks)
        st.leaf = fmap[st.leaf];
    for (int64_t id : a.modules_reached) {
        auto it = modules.find(id);
        if (it != modules.end() && module_paths.count(it->second.path))
            modules_reached.insert(id);
    }
}

const Reader &Query::reader() const {
    return *impl_->reader;
}
const QueryFilter &Query::filter() const {
    return impl_->filter;
}
const std::vector<EventInfo> &Query::events() const {
    return impl_->events;
}

int Query::event_index(const std::string &name) const {
    const auto &ev = events();
    for (size_t i = 0; i < ev.size(); ++i)
        if (ev[i].name == name)
            return int(i);
    auto lower = [](std::string s) {
        for (char &c : s)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return s;
    };
    for (size_t i = 0; i < ev.size(); ++i)
        if (lower(ev[i].name) == lower(name))
            return int(i);
    return -1;
}

const std::vector<FunctionInfo> &Query::functions() const {
    return impl_->functions;
}
const std::vector<std::string> &Query::files() const {
    return impl_->reader->symbol_table().files();
}

std::vector<uint32_t> Query::find_functions(const std::string &name) const {
    std::vector<uint32_t> exact, part;
    for (uint32_t i = 0; i < impl_->functions.size(); ++i) {
        const std::string &f = impl_->functions[i].name;
        if (f == name)
            exact.push_back(i);
        else if (f.find(name) != std::string::npos)
            part.push_back(i);
    }
    return exact.empty() ? part : exact;
}

size_t Query::stack_count() const {
    return impl_->stacks.size();
}
std::vector<PathFrame> Query::stack(size_t i) const {
    const auto &fnodes = impl_->fnodes;
    uint32_t leaf = impl_->stacks.at(i).leaf;
    std::vector<PathFrame> out(fnodes[leaf].depth);
    size_t k = out.size();
    for (uint32_t at = leaf; at != 0; at = fnodes[at].parent)
        out[--k] = fnodes[at].frame;
    return out;
}
uint32_t Query::stack_leaf(size_t i) const {
    return impl_->stacks.at(i).leaf;
}
const std::vector<Query::FrameNode> &Query::frame_nodes() const {
    return impl_->fnodes;
}
bool Query::stack_truncated(size_t i) const {
    return impl_->stacks.at(i).truncated;
}
const Cost &Query::stack_cost(size_t i) const {
    return impl_->stack_costs.at(i);
}
const Cost &Query::total() const {
    return impl_->total;
}
uint64_t Query::samples_complete() const {
    return impl_->complete;
}
uint32_t Query::truncated_function() const {
    return impl_->truncated_fn;
}
uint64_t Query::samples_kept() const {
    return impl_->kept;
}
uint64_t Query::samples_read() const {
    return impl_->read;
}
uint64_t Query::samples_with_cpu() const {
    return impl_->with_cpu;
}
const std::vector<Cost> &Query::function_self() const {
    return impl_->fself;
}
const std::vector<Cost> &Query::function_total() const {
    return impl_->ftotal;
}
const std::vector<Query::ThreadCost> &Query::threads() const {
    return impl_->threads;
}
const std::vector<Query::StackThreadCost> &Query::stack_thread_costs() const {
    return impl_->stack_threads;
}

std::vector<std::string> Query::modules_without_symbols() const {
    std::vector<std::string> out;
    for (int64_t id : impl_->modules_reached) {
        auto it = impl_->modules.find(id);
        if (it != impl_->modules.end() && it->second.has_symbols == false)
            out.push_back(it->second.path);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<Query::ModuleCost> Query::modules_lacking_names() const {
    const auto &fns = impl_->functions;
    const auto &fnodes = impl_->fnodes;
    std::unordered_map<std::string, uint32_t> index; // module path -> key
    std::vector<ModuleCost> out;
    std::vector<uint32_t> fn_key(fns.size(), kNoKey);
    for (size_t f = 0; f < fns.size(); ++f) {
        if (fns[f].has_symbols || fns[f].module.empty())
            continue;
        auto [it, fresh] = index.try_emplace(fns[f].module, uint32_t(out.size()));
        if (fresh)
            out.push_back({fns[f].module, {}});
        fn_key[f] = it->second;
    }
    if (out.empty())
        return out;
    std::vector<uint32_t> key(fnodes.size(), kNoKey);
    for (size_t v = 1; v < fnodes.size(); ++v)
        key[v] = fn_key[fnodes[v].frame.function];
    std::vector<Cost> costs = once_per_stack(key, out.size());
    for (size_t k = 0; k < out.size(); ++k)
        out[k].cost = std::move(costs[k]);
    std::erase_if(out, [](const ModuleCost &m) { return m.cost.empty(); });
    std::sort(out.begin(), out.end(), [](const ModuleCost &a, const ModuleCost &b) {
        return a.cost.samples != b.cost.samples ? a.cost.samples > b.cost.samples : a.path < b.path;
    });
    return out;
}

std::vector<Cost> Query::once_per_stack(std::span<const uint32_t> key_of, size_t keys) const {
    const auto &fnodes = impl_->fnodes;
    const size_t n = fnodes.size(), w = impl_->nevents + 1;
    // The cost of the stacks ending at or below each node: flat rows of
    // samples, then one value per event.
    std::vector<uint64_t> below(n * w, 0);
    auto add_row = [&](uint64_t *dst, const uint64_t *src) {
        for (size_t e = 0; e < w; ++e)
            dst[e] = saturating_add(dst[e], src[e]);
    };
    for (size_t i = 0; i < impl_->stacks.size(); ++i) {
        uint64_t *row = &below[size_t(impl_->stacks[i].leaf) * w];
        const Cost &c = impl_->stack_costs[i];
        row[0] = saturating_add(row[0], c.samples);
        for (size_t e = 0; e + 1 < w && e < c.values.size(); ++e)
            row[e + 1] = saturating_add(row[e + 1], c.values[e]);
    }
    for (size_t v = n; v-- > 1;)
        add_row(&below[size_t(fnodes[v].parent) * w], &below[v * w]);

    // Children lists (counting sort by parent), then a depth-first walk
    // that knows how often each key is open on the path from the root: a
    // node whose key is not yet open is the outermost occurrence on every
    // stack below it.
    std::vector<uint32_t> first(n + 1, 0), kids(n > 0 ? n - 1 : 0);
    for (size_t v = 1; v < n; ++v)
        ++first[fnodes[v].parent + 1];
    for (size_t v = 0; v < n; ++v)
        first[v + 1] += first[v];
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (size_t v = 1; v < n; ++v)
        kids[fill[fnodes[v].parent]++] = uint32_t(v);

    std::vector<Cost> out(keys, Cost{0, std::vector<uint64_t>(w - 1)});
    std::vector<uint32_t> open(keys, 0);
    auto key = [&](uint32_t v) { return v < key_of.size() ? key_of[v] : kNoKey; };
    struct Visit {
        uint32_t node, next; // next: index into kids
    };
    std::vector<Visit> path{{0, first[0]}};
    while (!path.empty()) {
        Visit &top = path.back();
        if (top.next == first[top.node + 1]) {
            uint32_t k = key(top.node);
            if (top.node != 0 && k < keys)
                --open[k];
            path.pop_back();
            continue;
        }
        uint32_t v = kids[top.next++];
        uint32_t k = key(v);
        if (k < keys && open[k]++ == 0) {
            const uint64_t *row = &below[size_t(v) * w];
            out[k].samples = saturating_add(out[k].samples, row[0]);
            for (size_t e = 1; e < w; ++e)
                out[k].values[e - 1] = saturating_add(out[k].values[e - 1], row[e]);
        }
        path.push_back({v, first[v]});
    }
    return out;
}

const std::vector<Query::FrameOrigin> &Query::frame_origins() const {
    return impl_->origins;
}

std::vector<Query::LineCost> Query::line_costs() const {
    struct Key {
        uint32_t function, file, line;
        bool operator==(const Key &) const = default;
    };
    struct Hash {
        size_t operator()(const Key &k) const {
            return std::hash<uint64_t>()((uint64_t(k.function) << 32 | k.file) * 31 + k.line);
        }
    };
    const auto &fnodes = impl_->fnodes;
    const size_t ne = impl_->nevents;
    std::unordered_map<Key, uint32_t, Hash> index;
    std::vector<LineCost> out;
    std::vector<uint32_t> line_of(fnodes.size(), kNoKey);
    for (size_t v = 1; v < fnodes.size(); ++v) {
        const PathFrame &f = fnodes[v].frame;
        auto [it, fresh] = index.try_emplace(Key{f.function, f.file, f.line}, uint32_t(out.size()));
        if (fresh)
            out.push_back({f.function, f.file, f.line, Cost{0, std::vector<uint64_t>(ne)},
                           Cost{0, std::vector<uint64_t>(ne)}});
        line_of[v] = it->second;
    }
    for (size_t i = 0; i < stack_count(); ++i)
        out[line_of[impl_->stacks[i].leaf]].self.add(stack_cost(i));
    std::vector<Cost> totals = once_per_stack(line_of, out.size());
    for (size_t k = 0; k < out.size(); ++k)
        out[k].total = std::move(totals[k]);
    return out;
}

std::string modules_lacking_names_text(const Query &q) {
    std::string mods;
    const uint64_t samples = q.samples_kept();
    // Time off the CPU is no sample: a module where threads only waited
    // has a share of that time instead.
    const int off = q.off_cpu_event();
    const double off_total = off < 0 ? 0 : double(q.total().values[size_t(off)]);
    for (const Query::ModuleCost &m : q.modules_lacking_names()) {
        char share[96];
        const double off_here = off < 0 ? 0 : double(m.cost.values[size_t(off)]);
        if (off_here > 0 && off_total > 0)
            std::snprintf(share, sizeof share,
                          " (%.1f %% of samples, %.1f %% of the time off the CPU)",
                          samples == 0 ? 0.0 : 100.0 * double(m.cost.samples) / double(samples),
                          100.0 * off_here / off_total);
        else
            std::snprintf(share, sizeof share, " (%.1f %% of samples)",
                          samples == 0 ? 0.0 : 100.0 * double(m.cost.samples) / double(samples));
        mods += (mods.empty() ? "" : ", ") + m.path + share;
    }
    return mods;
}

std::string events_text(const Query &q) {
    std::string out;
    const std::vector<EventInfo> &events = q.events();
    for (size_t i = 0; i < events.size(); ++i) {
        const EventInfo &e = events[i];
        out += out.empty() ? "" : ", ";
        out += e.name;
        if (e.sampling)
            out += " (sampling, period " + std::to_string(e.period) + ")";
        else if (int(i) == q.off_cpu_event())
            out += " (time off the CPU)";
        else if (int(i) == q.wall_clock_event())
            out += " (" + events[size_t(q.wall_clock_source())].name + " + " +
                   events[size_t(q.off_cpu_event())].name + ")";
        else
            out += " (counted)";
    }
    return out.empty() ? "none" : out;
}

} // namespace cpcprof::analysis
