// SPDX-License-Identifier: MIT
#include "storage/src/address_scan.h"

#include "storage/src/address_map.h"
#include "storage/src/sqlite_handle.h"

#include <algorithm>
#include <tuple>

namespace cpcprof::storage {
namespace {

constexpr int kNodeBits = 40; // (context << 40 | node): nodes < 2^40, contexts < 2^24
constexpr uint8_t kPc = 1, kReturn = 2;

struct Use {
    CodeAddress where;
    uint32_t mapping = 0;
    uint8_t roles = 0;
};

// Appends (context << 40 | stack) for a leaf of pid at time_ns.
bool add_leaf(AddressMap *map, int pid, int64_t time_ns, uint64_t stack,
              std::vector<uint64_t> *keys, std::string *reason) {
    uint32_t context = map->context(pid, time_ns);
    if (context >= (1u << (64 - kNodeBits)) || stack >= (uint64_t{1} << kNodeBits)) {
        *reason = "too many mapping changes or stack nodes to resolve";
        return false;
    }
    uint64_t key = (uint64_t{context} << kNodeBits) | stack;
    if (keys->empty() || keys->back() != key)
        keys->push_back(key);
    return true;
}

// Distinct (context << 40 | leaf node) of every sample and off-CPU row
// with a stack (the row's leaf, where the thread blocked, is a PC too).
bool sample_leaves(sqlite3 *db, const LoadedProfile &p, AddressMap *map,
                   std::vector<uint64_t> *keys, std::string *reason) {
    sql::Statement s;
    int rc;
    int64_t last_thread = 0;
    int pid = 0;
    for (rc = s.query(db, "SELECT id, thread, time_ns, stack FROM sample"); rc == SQLITE_ROW;
         rc = s.step()) {
        uint64_t stack = static_cast<uint64_t>(s.int64(3));
        if (stack == 0)
            continue;
        if (stack >= p.nodes.size()) {
            *reason = "inconsistent: sample " + std::to_string(s.int64(0)) +
                      " refers to missing stack node " + std::to_string(stack);
            return false;
        }
        if (s.int64(1) != last_thread || last_thread == 0) {
            auto t = p.thread_index.find(s.int64(1));
            if (t == p.thread_index.end()) {
                *reason = "inconsistent: sample " + std::to_string(s.int64(0)) +
                          " refers to missing thread " + std::to_string(s.int64(1));
                return false;
            }
            last_thread = s.int64(1);
            pid = p.threads[t->second].pid;
        }
        if (!add_leaf(map, pid, p.abs(s.int64(2)), stack, keys, reason))
            return false;
    }
    if (rc != SQLITE_DONE) {
        *reason = sql::describe(db, rc, "cannot read the samples");
        return false;
    }
    for (const OffCpuRecord &o : p.off_cpu) // load() checked their stacks
        if (o.stack != 0 && !add_leaf(map, o.pid, o.time_ns, o.stack, keys, reason))
            return false;
    std::sort(keys->begin(), keys->end());
    keys->erase(std::unique(keys->begin(), keys->end()), keys->end());
    return true;
}

// Every (node, role) reached from the leaves of one context, each once.
class ContextWalk {
  public:
    ContextWalk(const LoadedProfile &p, const AddressMap &map, std::vector<Use> *uses)
        : p_(p), map_(map), uses_(uses), marks_(p.nodes.size(), 0) {}

    void leaf(uint32_t context, uint64_t node) {
        note(context, node, kPc);
        for (uint64_t n = p_.nodes[node].parent; n != 0 && note(context, n, kReturn);
             n = p_.nodes[n].parent) {
        }
    }

    void clear() {
        for (uint64_t n : touched_)
            marks_[n] = 0;
        touched_.clear();
    }

  private:
    // false if (node, role) was already noted in this context.
    bool note(uint32_t context, uint64_t node, uint8_t role) {
        if (marks_[node] & role)
            return false;
        if (marks_[node] == 0)
            touched_.push_back(node);
        marks_[node] |= role;
        uint64_t address = p_.nodes[node].address;
        uint32_t m = map_.find(context, address);
        if (m != AddressMap::kNoMapping) {
            const ModuleRecord &r = p_.modules[m];
            uses_->push_back({{r.module_id, address - r.info.start + r.info.file_offset}, m, role});
        }
        return true;
    }

    const LoadedProfile &p_;
    const AddressMap &map_;
    std::vector<Use> *uses_;
    std::vector<uint8_t> marks_; // roles noted per node in the current context
    std::vector<uint64_t> touched_;
};

} // namespace

bool collect_addresses(sqlite3 *db, const LoadedProfile &p, std::vector<AddressToResolve> *out,
                       std::string *reason) {
    AddressMap map(p.modules);
    std::vector<uint64_t> keys;
    if (!sample_leaves(db, p, &map, &keys, reason))
        return false;
    std::vector<Use> uses;
    ContextWalk walk(p, map, &uses);
    const uint64_t node_mask = (uint64_t{1} << kNodeBits) - 1;
    for (size_t i = 0; i < keys.size(); ++i) {
        uint32_t context = static_cast<uint32_t>(keys[i] >> kNodeBits);
        if (i > 0 && context != (keys[i - 1] >> kNodeBits))
            walk.clear();
        walk.leaf(context, keys[i] & node_mask);
    }
    std::sort(uses.begin(), uses.end(), [](const Use &a, const Use &b) {
        return std::tie(a.where, a.mapping) < std::tie(b.where, b.mapping);
    });
    out->clear();
    for (size_t i = 0; i < uses.size(); ++i) {
        const Use &u = uses[i];
        if (i > 0 && uses[i - 1].where == u.where) { // the first has the lowest mapping id
            out->back().pc |= (u.roles & kPc) != 0;
            out->back().return_address |= (u.roles & kReturn) != 0;
            continue;
        }
        const ModuleRecord &m = p.modules[u.mapping];
        out->push_back({u.where.module_id, m.info.path, m.info.build_id, u.where.offset, m.info.pid,
                        m.info.start, m.info.end, m.info.file_offset, (u.roles & kReturn) != 0,
                        (u.roles & kPc) != 0});
    }
    return true;
}

} // namespace cpcprof::storage
