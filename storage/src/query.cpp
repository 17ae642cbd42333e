// Query and CallTree (storage/include/storage/query.h).
//
// One pass over the samples: each kept sample's stack is located
// (StackLocator: the same code in any process or at any time is one
// located node) and its cost added to its (distinct stack, thread) pair;
// a distinct stack is keyed by (located leaf, truncated).  A stack is
// named the first time it is seen: every located node expands, once, into
// its symbol chain (inlined calls, then the real function) or, without
// symbols, one "module+0xoffset" frame.  Stack, thread and total costs are
// sums of the pairs.
// Everything else (function and line costs, trees) is computed from the
// distinct stacks, so its cost does not grow with the number of samples.
#include "storage/query.h"

#include "flat_map.h"
#include "storage/stack_locator.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <unordered_set>

namespace cpcprof::storage {

void Cost::add(const Cost &other) {
    samples += other.samples;
    if (values.size() < other.values.size())
        values.resize(other.values.size());
    for (size_t i = 0; i < other.values.size(); ++i)
        values[i] += other.values[i];
}

namespace {

constexpr const char kNoStack[] = "[no stack]";

std::string base_name(const std::string &path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string hex_offset(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "+0x%" PRIx64, v);
    return buf;
}

struct ModuleFacts {
    std::string path;
    std::optional<bool> has_symbols;
};

} // namespace

struct Query::Impl {
    std::unique_ptr<Reader> reader;
    QueryFilter filter;
    size_t nevents = 0;
    std::unordered_map<int64_t, ModuleFacts> modules; // by module_id
    std::unordered_set<int64_t> modules_reached;

    std::vector<FunctionInfo> functions;
    std::unordered_map<std::string, uint32_t> function_ids; // name '\0' module

    struct Stack {
        uint32_t first = 0, count = 0;
        bool truncated = false;
    };
    std::vector<PathFrame> frames; // every stack's, root first, back to back
    std::vector<Stack> stacks;
    std::vector<Cost> stack_costs;

    Cost total;
    uint64_t kept = 0, read = 0;
    std::vector<Cost> fself, ftotal;
    std::vector<ThreadCost> threads;
    std::vector<StackThreadCost> stack_threads;

    uint32_t function_id(const std::string &name, const std::string &module, bool has_symbols,
                         const std::string &file) {
        std::string key = name;
        key.push_back('\0');
        key += module;
        auto [it, fresh] = function_ids.try_emplace(std::move(key), uint32_t(functions.size()));
        if (fresh)
            functions.push_back({name, module, file, has_symbols});
        else if (functions[it->second].file.empty() && !file.empty())
            functions[it->second].file = file;
        return it->second;
    }

    // Each located node's own frames (its symbol chain, innermost first,
    // or one "module+0xoffset" frame), expanded once: stacks share nodes.
    std::vector<PathFrame> node_frames;
    std::vector<std::pair<uint32_t, uint32_t>> node_span; // first, count; count 0 = not yet

    std::span<const PathFrame> expand(const LocatedNode &node, uint32_t id) {
        if (id >= node_span.size())
            node_span.resize(id + 1, {0, 0});
        if (node_span[id].second != 0)
            return {node_frames.data() + node_span[id].first, node_span[id].second};
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
        std::span<const FrameRef> chain = syms.frames(node.chain);
        if (!inline_frames_wanted() && !chain.empty())
            chain = chain.subspan(chain.size() - 1);
        for (const FrameRef &f : chain) {
            const std::string &fn = syms.functions()[f.function];
            if (fn.empty())
                continue;
            uint32_t fid = function_id(fn, module, true, syms.files()[f.file]);
            node_frames.push_back({fid, f.file, f.line, f.inlined && inline_frames_wanted()});
        }
        if (node_frames.size() == first) {
            std::string name = (mod ? base_name(module) : std::string("[unknown]")) +
                               hex_offset(node.where.offset);
            node_frames.push_back({function_id(name, module, false, ""), 0, 0, false});
        }
        node_span[id] = {first, uint32_t(node_frames.size() - first)};
        return {node_frames.data() + first, node_frames.size() - first};
    }

    // Appends the frames of located node n, root first, as a new stack.
    void name_stack(const StackLocator &loc, uint32_t n, bool truncated) {
        const auto &nodes = loc.nodes();
        leaf_first.clear();
        if (n == 0)
            leaf_first.push_back({function_id(kNoStack, "", false, ""), 0, 0, false});
        for (uint32_t at = n; at != 0; at = nodes[at].parent) {
            std::span<const PathFrame> own = expand(nodes[at], at);
            leaf_first.insert(leaf_first.end(), own.begin(), own.end());
        }
        Stack s;
        s.first = uint32_t(frames.size());
        s.count = uint32_t(leaf_first.size());
        s.truncated = truncated;
        frames.insert(frames.end(), leaf_first.rbegin(), leaf_first.rend());
        stacks.push_back(s);
        stack_costs.push_back(Cost{0, std::vector<uint64_t>(nevents)});
    }
    std::vector<PathFrame> leaf_first; // scratch

    bool inline_frames_wanted() const { return filter.inline_frames; }

    bool keep(const StoredSample &s) const {
        if (filter.pid && s.pid != *filter.pid)
            return false;
        if (filter.tid && s.tid != *filter.tid)
            return false;
        int64_t t = reader->since_start(s.time_ns);
        if (filter.from_ns && t < *filter.from_ns)
            return false;
        if (filter.to_ns && t >= *filter.to_ns)
            return false;
        return true;
    }

    void sum_functions() {
        fself.assign(functions.size(), Cost{0, std::vector<uint64_t>(nevents)});
        ftotal.assign(functions.size(), Cost{0, std::vector<uint64_t>(nevents)});
        std::vector<size_t> seen(functions.size(), SIZE_MAX);
        for (size_t i = 0; i < stacks.size(); ++i) {
            const Stack &s = stacks[i];
            const PathFrame *f = frames.data() + s.first;
            fself[f[s.count - 1].function].add(stack_costs[i]);
            for (uint32_t k = 0; k < s.count; ++k) {
                if (seen[f[k].function] == i)
                    continue;
                seen[f[k].function] = i;
                ftotal[f[k].function].add(stack_costs[i]);
            }
        }
    }
};

Query::Query(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Query::~Query() = default;

std::unique_ptr<Query> Query::open(const std::string &path, const QueryFilter &filter,
                                   std::string *error) {
    auto impl = std::make_unique<Impl>();
    impl->reader = Reader::open(path, error);
    if (!impl->reader)
        return nullptr;
    impl->filter = filter;
    const Reader &r = *impl->reader;
    impl->nevents = r.run().events.size();
    impl->total.values.assign(impl->nevents, 0);
    for (const ModuleRecord &m : r.modules()) {
        ModuleFacts &f = impl->modules[m.module_id];
        f.path = m.info.path;
        f.has_symbols = m.has_symbols;
    }

    // Per sample: the located stack, then one cost per (stack, thread);
    // stack, thread and total costs are summed from those afterwards.
    StackLocator loc(r);
    FlatMap stack_of;        // located leaf * 2 + truncated -> stack
    FlatMap thread_of;       // pid << 32 | tid -> thread
    FlatMap stack_thread_of; // stack << 32 | thread -> stack_threads
    std::unordered_map<uint64_t, std::string> thread_names;
    for (const ThreadInfo &t : r.threads())
        thread_names.emplace(uint64_t(uint32_t(t.pid)) << 32 | uint32_t(t.tid), t.name);
    Impl &q = *impl;
    uint64_t last_tkey = 0;
    uint32_t last_thread = UINT32_MAX;
    bool ok = r.for_each_sample(
        [&](const StoredSample &s) {
            ++q.read;
            if (!q.keep(s))
                return;
            ++q.kept;
            uint32_t n = loc.locate(s);
            uint64_t key = uint64_t(n) * 2 + (s.complete ? 0 : 1);
            uint32_t stack;
            if (const uint32_t *hit = stack_of.find(key)) {
                stack = *hit;
            } else {
                stack = uint32_t(q.stacks.size());
                stack_of.insert(key, stack);
                q.name_stack(loc, n, !s.complete);
            }
            uint64_t tkey = uint64_t(uint32_t(s.pid)) << 32 | uint32_t(s.tid);
            if (last_thread == UINT32_MAX || tkey != last_tkey) {
                if (const uint32_t *hit = thread_of.find(tkey)) {
                    last_thread = *hit;
                } else {
                    last_thread = uint32_t(q.threads.size());
                    thread_of.insert(tkey, last_thread);
                    q.threads.push_back({s.pid, s.tid, thread_names[tkey],
                                         Cost{0, std::vector<uint64_t>(q.nevents)}});
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
                q.stack_threads.push_back(
                    {stack, last_thread, Cost{0, std::vector<uint64_t>(q.nevents)}});
            }
            Cost &c = q.stack_threads[st].cost;
            c.samples += 1;
            size_t nv = std::min(s.values.size(), q.nevents);
            for (size_t e = 0; e < nv; ++e)
                c.values[e] += s.values[e];
        },
        error, Reader::Frames::skip);
    if (!ok) {
        *error = path + ": " + *error;
        return nullptr;
    }
    for (const StackThreadCost &st : q.stack_threads) {
        q.stack_costs[st.stack].add(st.cost);
        q.threads[st.thread].cost.add(st.cost);
        q.total.add(st.cost);
    }
    q.sum_functions();
    return std::unique_ptr<Query>(new Query(std::move(impl)));
}

const Reader &Query::reader() const { return *impl_->reader; }
const QueryFilter &Query::filter() const { return impl_->filter; }
const std::vector<EventInfo> &Query::events() const { return impl_->reader->run().events; }

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

const std::vector<FunctionInfo> &Query::functions() const { return impl_->functions; }
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

size_t Query::stack_count() const { return impl_->stacks.size(); }
std::span<const PathFrame> Query::stack(size_t i) const {
    const Impl::Stack &s = impl_->stacks.at(i);
    return {impl_->frames.data() + s.first, s.count};
}
bool Query::stack_truncated(size_t i) const { return impl_->stacks.at(i).truncated; }
const Cost &Query::stack_cost(size_t i) const { return impl_->stack_costs.at(i); }
const Cost &Query::total() const { return impl_->total; }
uint64_t Query::samples_kept() const { return impl_->kept; }
uint64_t Query::samples_read() const { return impl_->read; }
const std::vector<Cost> &Query::function_self() const { return impl_->fself; }
const std::vector<Cost> &Query::function_total() const { return impl_->ftotal; }
const std::vector<Query::ThreadCost> &Query::threads() const { return impl_->threads; }
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
    std::unordered_map<Key, size_t, Hash> index;
    std::vector<LineCost> out;
    const size_t ne = impl_->nevents;
    auto at = [&](const PathFrame &f) -> LineCost & {
        auto [it, fresh] = index.try_emplace(Key{f.function, f.file, f.line}, out.size());
        if (fresh)
            out.push_back({f.function, f.file, f.line, Cost{0, std::vector<uint64_t>(ne)},
                           Cost{0, std::vector<uint64_t>(ne)}});
        return out[it->second];
    };
    std::vector<size_t> seen; // line index -> the last stack that counted it
    for (size_t i = 0; i < stack_count(); ++i) {
        std::span<const PathFrame> s = stack(i);
        const Cost &c = stack_cost(i);
        at(s.back()).self.add(c);
        for (const PathFrame &f : s) {
            size_t idx = size_t(&at(f) - out.data());
            if (idx >= seen.size())
                seen.resize(out.size(), SIZE_MAX);
            if (seen[idx] == i)
                continue;
            seen[idx] = i;
            out[idx].total.add(c);
        }
    }
    return out;
}

// ---- CallTree ---------------------------------------------------------------

CallTree::CallTree(const Query &q) : nevents_(q.events().size()) {
    nodes_.push_back(Node{});
    nodes_[0].self.values.assign(nevents_, 0);
    nodes_[0].total.values.assign(nevents_, 0);
}

uint32_t CallTree::child(uint32_t parent, const PathFrame &frame) {
    uint64_t key = uint64_t(parent) << 32 | frame.function;
    auto [it, fresh] = index_.try_emplace(key, uint32_t(nodes_.size()));
    if (fresh) {
        Node n;
        n.parent = parent;
        n.function = frame.function;
        n.depth = nodes_[parent].depth + 1;
        n.inlined = frame.inlined;
        n.self.values.assign(nevents_, 0);
        n.total.values.assign(nevents_, 0);
        nodes_.push_back(std::move(n));
        nodes_[parent].children.push_back(it->second);
    } else {
        nodes_[it->second].inlined = nodes_[it->second].inlined && frame.inlined;
    }
    return it->second;
}

void CallTree::add_path(std::span<const PathFrame> seq, const Cost &cost, size_t self_at) {
    nodes_[0].total.add(cost);
    uint32_t at = 0;
    for (size_t k = 0; k < seq.size(); ++k) {
        at = child(at, seq[k]);
        nodes_[at].total.add(cost);
        if (k == self_at)
            nodes_[at].self.add(cost);
    }
}

CallTree CallTree::top_down(const Query &q) {
    CallTree t(q);
    for (size_t i = 0; i < q.stack_count(); ++i) {
        auto s = q.stack(i);
        t.add_path(s, q.stack_cost(i), s.size() - 1);
    }
    return t;
}

CallTree CallTree::bottom_up(const Query &q) {
    CallTree t(q);
    std::vector<PathFrame> seq;
    for (size_t i = 0; i < q.stack_count(); ++i) {
        auto s = q.stack(i);
        seq.assign(s.rbegin(), s.rend());
        t.add_path(seq, q.stack_cost(i), 0);
    }
    return t;
}

CallTree CallTree::callers(const Query &q, uint32_t fn) {
    CallTree t(q);
    std::vector<PathFrame> seq;
    for (size_t i = 0; i < q.stack_count(); ++i) {
        auto s = q.stack(i);
        size_t k = s.size();
        while (k > 0 && s[k - 1].function != fn)
            --k;
        if (k == 0)
            continue;
        seq.assign(std::make_reverse_iterator(s.begin() + k), s.rend());
        t.add_path(seq, q.stack_cost(i), k == s.size() ? 0 : SIZE_MAX);
    }
    return t;
}

CallTree CallTree::callees(const Query &q, uint32_t fn) {
    CallTree t(q);
    for (size_t i = 0; i < q.stack_count(); ++i) {
        auto s = q.stack(i);
        size_t k = 0;
        while (k < s.size() && s[k].function != fn)
            ++k;
        if (k == s.size())
            continue;
        t.add_path(s.subspan(k), q.stack_cost(i), s.size() - 1 - k);
    }
    return t;
}

} // namespace cpcprof::storage
