// SPDX-License-Identifier: MIT
#include "profiler/report/annotate_disasm.h"

#include "profiler/analysis/function_costs.h"
#include "profiler/analysis/table_format.h"

#include <cinttypes>
#include <cstdio>

namespace cpcprof::report {

std::string annotate_disassembly(const analysis::Query &q, int weigh,
                                 const std::vector<size_t> &events, uint32_t fn,
                                 const analysis::DisassemblyOptions &options, bool *ok) {
    const analysis::FunctionInfo &info = q.functions()[fn];
    std::string out = "== " + info.name + "  (" +
                      (info.module.empty() ? std::string("no module") : info.module) + ")";
    int64_t module_id = 0;
    std::string module;
    uint64_t offset = 0;
    if (!analysis::hottest_code(q, fn, &module_id, &module, &offset)) {
        std::fprintf(stderr,
                     "cpcprof annotate: %s: no sampled code in a module; nothing to "
                     "disassemble\n",
                     info.name.c_str());
        *ok = false;
        return out + "\n";
    }
    analysis::Disassembly d = analysis::disassemble(module, offset, options);
    if (!d.error.empty()) {
        std::fprintf(stderr, "cpcprof annotate: %s: not disassembled: %s\n", info.name.c_str(),
                     d.error.c_str());
        *ok = false;
        return out + "\n";
    }
    *ok = true;
    std::vector<analysis::InstructionCost> costs = analysis::instruction_costs(q, module_id, d);
    const size_t w = size_t(weigh);
    char range[64];
    std::snprintf(range, sizeof range, "0x%" PRIx64 "-0x%" PRIx64, d.start, d.end);
    out += ": symbol " + d.symbol + " at " + range + ", " + std::to_string(d.instructions.size()) +
           " instructions";
    if (!d.debug_file.empty())
        out += "; named from " + d.debug_file + (d.debug_from.empty() ? "" : ", " + d.debug_from);
    out += "\n";
    analysis::Table t;
    t.headers = {"self%:" + q.events()[w].name, "samples", "total-samples"};
    for (size_t e : events) {
        t.headers.push_back("self:" + q.events()[e].name);
        t.headers.push_back("total:" + q.events()[e].name);
    }
    t.headers.insert(t.headers.end(), {"", "address", "line", "instruction"});
    t.left.assign(t.headers.size(), false);
    for (size_t k = t.headers.size() - 3; k < t.headers.size(); ++k)
        t.left[k] = true;
    for (size_t i = 0; i < d.instructions.size(); ++i) {
        const analysis::Instruction &in = d.instructions[i];
        const analysis::InstructionCost &c = costs[i];
        std::vector<std::string> row;
        const bool hit = c.total.samples != 0;
        if (hit) {
            row = {analysis::percent(analysis::share(c.self.values[w], q.total().values[w])),
                   std::to_string(c.self.samples), std::to_string(c.total.samples)};
            for (size_t e : events) {
                row.push_back(std::to_string(c.self.values[e]));
                row.push_back(std::to_string(c.total.values[e]));
            }
        } else {
            row.assign(3 + 2 * events.size(), "");
        }
        char addr[24];
        std::snprintf(addr, sizeof addr, "0x%" PRIx64, in.address);
        std::string where = in.line == 0
                                ? std::string("?")
                                : analysis::basename_of(in.file) + ":" + std::to_string(in.line);
        std::string text = in.text;
        if (!in.inlined_from.empty())
            text += "    [inlined " + in.inlined_from + "]";
        row.insert(row.end(), {hit ? ">" : "", addr, where, text});
        t.rows.push_back(std::move(row));
    }
    return out + t.render();
}

} // namespace cpcprof::report
