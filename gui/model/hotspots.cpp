#include "gui/model/hotspots.h"

#include <tuple>

namespace cpcprof::gui {

using analysis::Query;

std::vector<HotspotRow> hotspot_rows(const Query &q) {
    const auto &fns = q.functions();
    // Where a function's cost is: its line with the most self samples,
    // then the most total samples (as report's function rows).
    std::vector<Query::LineCost> lines = q.line_costs();
    std::vector<const Query::LineCost *> hottest(fns.size(), nullptr);
    for (const auto &lc : lines) {
        const Query::LineCost *&h = hottest[lc.function];
        if (lc.line != 0 && (h == nullptr || std::tie(lc.self.samples, lc.total.samples) >
                                                 std::tie(h->self.samples, h->total.samples)))
            h = &lc;
    }
    std::vector<HotspotRow> rows;
    for (uint32_t f = 0; f < fns.size(); ++f) {
        if (q.function_total()[f].samples == 0)
            continue;
        HotspotRow r;
        r.function = f;
        r.file = hottest[f] ? q.files()[hottest[f]->file] : fns[f].file;
        r.line = hottest[f] ? hottest[f]->line : 0;
        r.self = q.function_self()[f];
        r.total = q.function_total()[f];
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string location(const HotspotRow &row) {
    if (row.file.empty())
        return row.line ? "?:" + std::to_string(row.line) : "";
    return row.line ? row.file + ":" + std::to_string(row.line) : row.file;
}

} // namespace cpcprof::gui
