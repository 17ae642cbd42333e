// SPDX-License-Identifier: MIT
#include "tests/support/synthetic_stacks.h"

#include <sqlite3.h>

#include <algorithm>

namespace cpcprof::test {

std::vector<std::vector<uint64_t>> tree_shaped_stacks(unsigned count, unsigned depth,
                                                      std::mt19937_64 &rng) {
    auto address = [&] {
        bool lib = rng() % 3 == 0;
        return (lib ? kSyntheticLib : kSyntheticExe) + (rng() % kSyntheticSpan);
    };
    std::vector<std::vector<uint64_t>> root_first;
    for (unsigned k = 0; k < count; ++k) {
        std::vector<uint64_t> s;
        if (k > 0) {
            const auto &base = root_first[rng() % k];
            unsigned keep = std::min<unsigned>(depth - 1, 5 + rng() % depth);
            s.assign(base.begin(), base.begin() + std::min<size_t>(keep, base.size()));
        }
        while (s.size() < depth)
            s.push_back(address());
        root_first.push_back(std::move(s));
    }
    for (auto &s : root_first)
        std::reverse(s.begin(), s.end());
    return root_first;
}

std::vector<double> zipf_cdf(unsigned n) {
    std::vector<double> cdf(n);
    double sum = 0;
    for (unsigned r = 0; r < n; ++r)
        cdf[r] = (sum += 1.0 / (r + 1));
    for (double &c : cdf)
        c /= sum;
    return cdf;
}

std::optional<std::vector<TableSize>> table_sizes(const std::string &path) {
    sqlite3 *db = nullptr;
    sqlite3_stmt *st = nullptr;
    std::optional<std::vector<TableSize>> out;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
        sqlite3_prepare_v2(db,
                           "SELECT name, sum(pgsize), count(*) FROM dbstat GROUP BY name "
                           "ORDER BY sum(pgsize) DESC",
                           -1, &st, nullptr) == SQLITE_OK) {
        out.emplace();
        while (sqlite3_step(st) == SQLITE_ROW)
            out->push_back({reinterpret_cast<const char *>(sqlite3_column_text(st, 0)),
                            static_cast<double>(sqlite3_column_int64(st, 1)),
                            static_cast<long long>(sqlite3_column_int64(st, 2))});
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

} // namespace cpcprof::test
