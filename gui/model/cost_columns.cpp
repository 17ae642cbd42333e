// SPDX-License-Identifier: MIT
#include "gui/model/cost_columns.h"

#include "profiler/analysis/event_units.h"

namespace cpcprof::gui {

using analysis::Cost;

std::string short_event_name(const std::string &name) {
    std::string s = name;
    size_t pmu = s.rfind("::");
    if (s.size() > kShortName && pmu != std::string::npos && pmu + 2 < s.size())
        s = s.substr(pmu + 2);
    if (s.size() > kShortName) {
        const size_t tail = (kShortName - 1) / 2, head = kShortName - 1 - tail;
        s = s.substr(0, head) + "\u2026" + s.substr(s.size() - tail);
    }
    return s;
}

CostColumns cost_columns(const analysis::Query &q) {
    CostColumns c;
    c.derived = analysis::derived_columns(q.events());
    const auto &events = q.events();
    for (size_t e = 0; e < events.size(); ++e) {
        const std::string &n = events[e].name, shown = short_event_name(n);
        c.columns.push_back({CostColumn::Kind::Self, int(e), 0, "self:" + n, "self:" + shown});
        c.columns.push_back({CostColumn::Kind::Total, int(e), 0, "total:" + n, "total:" + shown});
    }
    for (size_t d = 0; d < c.derived.size(); ++d) {
        const std::string &n = c.derived[d].name, shown = short_event_name(n);
        c.columns.push_back({CostColumn::Kind::DerivedSelf, 0, int(d), n, shown});
        c.columns.push_back(
            {CostColumn::Kind::DerivedTotal, 0, int(d), "total:" + n, "total:" + shown});
    }
    c.totals.assign(q.total().values.begin(), q.total().values.end());
    c.totals.resize(events.size());
    for (const storage::EventInfo &e : events)
        c.time_event.push_back(analysis::is_time_event(e.name));
    return c;
}

std::optional<double> column_value(const CostColumns &c, const CostColumn &col, const Cost &self,
                                   const Cost &total) {
    switch (col.kind) {
    case CostColumn::Kind::Self:
    case CostColumn::Kind::Total: {
        const Cost &cost = col.kind == CostColumn::Kind::Self ? self : total;
        if (size_t(col.event) >= cost.values.size())
            return 0.0;
        return double(cost.values[size_t(col.event)]);
    }
    case CostColumn::Kind::DerivedSelf:
        return analysis::derive(c.derived.at(size_t(col.derived)), self).value;
    case CostColumn::Kind::DerivedTotal:
        return analysis::derive(c.derived.at(size_t(col.derived)), total).value;
    }
    return std::nullopt;
}

uint64_t column_samples(const CostColumn &col, const Cost &self, const Cost &total) {
    bool is_self = col.kind == CostColumn::Kind::Self || col.kind == CostColumn::Kind::DerivedSelf;
    return is_self ? self.samples : total.samples;
}

std::optional<double> column_share(const CostColumns &c, const CostColumn &col, const Cost &self,
                                   const Cost &total) {
    if (col.kind != CostColumn::Kind::Self && col.kind != CostColumn::Kind::Total)
        return std::nullopt;
    if (size_t(col.event) >= c.totals.size() || c.totals[size_t(col.event)] == 0)
        return std::nullopt;
    return *column_value(c, col, self, total) / double(c.totals[size_t(col.event)]);
}

int event_column(const CostColumns &c, int event, CostColumn::Kind kind) {
    for (size_t i = 0; i < c.columns.size(); ++i)
        if (c.columns[i].kind == kind && c.columns[i].event == event)
            return int(i);
    return -1;
}

} // namespace cpcprof::gui
