// SPDX-License-Identifier: MIT
#include "tests/symbolize_profile/profile_names.h"

#include <set>

namespace cpcprof::test {

bool function_counts(const storage::Reader &reader, FunctionCounts *out, std::string *error) {
    const storage::SymbolTable &table = reader.symbol_table();
    storage::StackLocator locator(reader);
    FunctionCounts counts;
    bool ok = reader.for_each_sample(
        [&](const storage::StoredSample &s) {
            ++counts.samples;
            uint32_t leaf = locator.locate(s);
            const auto &nodes = locator.nodes();
            if (leaf == 0 || nodes[leaf].chain == 0) {
                ++counts.unnamed_leaves;
                return;
            }
            std::vector<storage::SymbolFrame> frames = table.expand(nodes[leaf].chain);
            ++counts.self[frames.back().function];
            std::set<std::string> on_stack;
            for (uint32_t n = leaf; n != 0; n = nodes[n].parent)
                for (const storage::SymbolFrame &f : table.expand(nodes[n].chain)) {
                    on_stack.insert(f.function);
                    if (!f.file.empty())
                        counts.file_of[f.function] = f.file;
                }
            for (const std::string &name : on_stack)
                ++counts.total[name];
        },
        error, storage::Reader::Frames::skip);
    *out = std::move(counts);
    return ok;
}

std::string hottest(const FunctionCounts &counts) {
    std::string best;
    uint64_t most = 0;
    for (const auto &[name, n] : counts.self)
        if (n > most) {
            best = name;
            most = n;
        }
    return best;
}

} // namespace cpcprof::test
