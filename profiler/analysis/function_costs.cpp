// SPDX-License-Identifier: MIT
#include "profiler/analysis/function_costs.h"

#include <algorithm>
#include <map>

namespace cpcprof::analysis {

using analysis::Cost;
using analysis::Query;

std::vector<Query::LineCost> function_line_costs(const Query &q, uint32_t fn) {
    const auto &fnodes = q.frame_nodes();
    const size_t ne = q.events().size();
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> index; // (file, line) -> row
    std::vector<Query::LineCost> out;
    std::vector<uint32_t> key_of(fnodes.size(), Query::kNoKey);
    for (size_t v = 1; v < fnodes.size(); ++v) {
        const analysis::PathFrame &f = fnodes[v].frame;
        if (f.function != fn)
            continue;
        auto [it, fresh] = index.try_emplace({f.file, f.line}, uint32_t(out.size()));
        if (fresh)
            out.push_back({fn, f.file, f.line, Cost{0, std::vector<uint64_t>(ne)},
                           Cost{0, std::vector<uint64_t>(ne)}});
        key_of[v] = it->second;
    }
    for (size_t i = 0; i < q.stack_count(); ++i) {
        uint32_t k = key_of[q.stack_leaf(i)];
        if (k != Query::kNoKey)
            out[k].self.add(q.stack_cost(i));
    }
    std::vector<Cost> totals = q.once_per_stack(key_of, out.size());
    for (size_t k = 0; k < out.size(); ++k)
        out[k].total = std::move(totals[k]);
    std::sort(out.begin(), out.end(), [](const auto &a, const auto &b) {
        return a.file != b.file ? a.file < b.file : a.line < b.line;
    });
    return out;
}

std::vector<InstructionCost> instruction_costs(const Query &q, int64_t module_id,
                                               const Disassembly &d) {
    const size_t ne = q.events().size();
    std::vector<InstructionCost> out(d.instructions.size(), {Cost{0, std::vector<uint64_t>(ne)},
                                                             Cost{0, std::vector<uint64_t>(ne)}});
    if (d.instructions.empty())
        return out;
    std::vector<uint64_t> starts;
    for (const Instruction &i : d.instructions)
        starts.push_back(i.offset);
    const uint64_t lo = starts.front();
    const uint64_t hi = starts.back() + (d.end - d.instructions.back().address); // past the last
    // The instruction holding addr, or -1.
    auto insn_of = [&](uint64_t addr) -> long {
        if (addr < lo || addr >= hi)
            return -1;
        return long(std::upper_bound(starts.begin(), starts.end(), addr) - starts.begin()) - 1;
    };
    const auto &fnodes = q.frame_nodes();
    const auto &origins = q.frame_origins();
    std::vector<long> seen; // instructions of this stack, for "once per sample"
    for (size_t s = 0; s < q.stack_count(); ++s) {
        const Cost &cost = q.stack_cost(s);
        uint32_t leaf = q.stack_leaf(s);
        const uint32_t pc_frame = origins[leaf].located;
        seen.clear();
        uint32_t last = UINT32_MAX;
        for (uint32_t v = leaf; v != 0; v = fnodes[v].parent) {
            const Query::FrameOrigin &o = origins[v];
            if (o.located == last || o.located == 0)
                continue;
            last = o.located;
            if (o.where.module_id != module_id)
                continue;
            const bool pc = o.located == pc_frame;
            // A return address follows its call: the call holds address - 1.
            long k = insn_of(pc ? o.where.offset : o.where.offset - 1);
            if (k < 0)
                continue;
            if (pc)
                out[size_t(k)].self.add(cost);
            if (std::find(seen.begin(), seen.end(), k) == seen.end()) {
                seen.push_back(k);
                out[size_t(k)].total.add(cost);
            }
        }
    }
    return out;
}

bool hottest_code(const Query &q, uint32_t fn, int64_t *module_id, std::string *module_path,
                  uint64_t *offset) {
    const auto &fnodes = q.frame_nodes();
    const auto &origins = q.frame_origins();
    std::map<storage::CodeAddress, std::pair<uint64_t, uint64_t>> count; // self, total samples
    for (size_t s = 0; s < q.stack_count(); ++s) {
        uint32_t leaf = q.stack_leaf(s);
        uint64_t n = q.stack_cost(s).samples;
        for (uint32_t v = leaf; v != 0; v = fnodes[v].parent) {
            if (fnodes[v].frame.function != fn || origins[v].where.module_id == 0)
                continue;
            storage::CodeAddress at = origins[v].where;
            const bool pc = origins[v].located == origins[leaf].located;
            if (!pc) // a return address: its call is the byte before
                at.offset -= 1;
            auto &c = count[at];
            if (pc)
                c.first += n;
            c.second += n;
        }
    }
    if (count.empty())
        return false;
    auto best = std::max_element(count.begin(), count.end(),
                                 [](const auto &a, const auto &b) { return a.second < b.second; });
    *module_id = best->first.module_id;
    *offset = best->first.offset;
    module_path->clear();
    for (const storage::ModuleRecord &m : q.reader().modules())
        if (m.module_id == *module_id) {
            *module_path = m.info.path;
            break;
        }
    return !module_path->empty();
}

} // namespace cpcprof::analysis
