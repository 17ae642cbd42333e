// SPDX-License-Identifier: MIT
// The viewer's figures against `cpcprof report`'s on the same file: the
// hotspot rows of report's library, and the JSON the cpcprof binary
// prints (self and total per event, derived ratios).
#include "tests/gui/model/model_test_util.h"

#include "gui/model/cost_columns.h"
#include "profiler/analysis/hotspots.h"
#include "profiler/report/report_output.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using nlohmann::json;

// Lines: one sample each (COUNT 1), its value of every event.
const std::vector<std::string> kCounters = {
    "main:2;hot:1 1 1000 500 10 100", "main:2;hot:1 1 1000 500 10 100",
    "main:2;hot:1;leaf:3 1 1000 250 30 40", "main:2;cold:4 1 1000 2000 1 50",
    "main:2 1 1000 0 0 0"};

struct Agreement : ProfileTest {
    void check_rows() {
        const cpcprof::analysis::Query &q = *profile->query;
        // The viewer's table shows report's rows (one computation); its
        // rows find their function by index, and its derived columns are
        // report's ratios.
        std::vector<cpcprof::analysis::HotspotRow> rows =
            cpcprof::analysis::hotspot_rows(q, cpcprof::analysis::GroupBy::function);
        CostColumns c = cost_columns(q);
        EXPECT_EQ(c.derived.size(), report::derived_columns(q.events()).size());
        for (const auto &m : rows) {
            const auto &fn = q.functions()[m.function_index];
            const cpcprof::analysis::HotspotRow *r = &m;
            EXPECT_EQ(fn.name, m.function);
            EXPECT_EQ(fn.module, m.module) << fn.name;
            for (const CostColumn &col : c.columns) {
                if (col.kind != CostColumn::Kind::DerivedSelf)
                    continue;
                auto theirs_v = report::derive(c.derived[size_t(col.derived)], r->self);
                EXPECT_EQ(column_value(c, col, m.self, m.total), theirs_v.value)
                    << fn.name << " " << col.header;
                EXPECT_EQ(column_samples(col, m.self, m.total), theirs_v.samples);
            }
        }
    }
};

TEST_F(Agreement, HotspotRowsOfFoldedCountersAreReportRows) {
    load_folded({"cycles", "instructions", "cache-misses", "cache-references"}, kCounters, 1000);
    check_rows();
}

TEST_F(Agreement, HotspotRowsOfKnownProfileAreReportRows) {
    load_known();
    check_rows();
}

// What the cpcprof binary prints, parsed, against the models' cells.
TEST_F(Agreement, ReportJsonHasTheViewersFigures) {
#ifndef CPCPROF_EXE
    GTEST_SKIP() << "the cpcprof program is not built";
#else
    load_folded({"cycles", "instructions", "cache-misses", "cache-references"}, kCounters, 1000);
    std::string cmd =
        std::string(CPCPROF_EXE) + " report '" + path("folded.cpcprof") + "' --format json --top 0";
    FILE *p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        out.append(buf, n);
    ASSERT_EQ(pclose(p), 0) << cmd;
    json doc = json::parse(out);
    const cpcprof::analysis::Query &q = *profile->query;
    CostColumns c = cost_columns(q);
    std::vector<cpcprof::analysis::HotspotRow> mine =
        cpcprof::analysis::hotspot_rows(q, cpcprof::analysis::GroupBy::function);
    ASSERT_EQ(doc.at("rows").size(), mine.size());
    size_t derived_checked = 0;
    for (const json &row : doc.at("rows")) {
        const cpcprof::analysis::HotspotRow *m = nullptr;
        for (const auto &r : mine)
            if (q.functions()[r.function_index].name == row.at("function").get<std::string>())
                m = &r;
        ASSERT_NE(m, nullptr) << row.dump();
        for (size_t e = 0; e < q.events().size(); ++e) {
            int self = event_column(c, int(e), CostColumn::Kind::Self);
            int total = event_column(c, int(e), CostColumn::Kind::Total);
            EXPECT_EQ(*column_value(c, c.columns[size_t(self)], m->self, m->total),
                      row.at("self").at("values").at(e).get<double>());
            EXPECT_EQ(*column_value(c, c.columns[size_t(total)], m->self, m->total),
                      row.at("total").at("values").at(e).get<double>());
        }
        const json &derived = row.at("derived");
        ASSERT_EQ(derived.size(), c.derived.size());
        for (const CostColumn &col : c.columns) {
            if (col.kind != CostColumn::Kind::DerivedSelf)
                continue;
            const json &d = derived.at(size_t(col.derived));
            EXPECT_EQ(d.at("name").get<std::string>(), col.header);
            auto v = column_value(c, col, m->self, m->total);
            if (d.at("value").is_null()) {
                EXPECT_FALSE(v) << col.header;
            } else {
                ASSERT_TRUE(v) << col.header;
                EXPECT_NEAR(*v, d.at("value").get<double>(), 1e-9 * std::abs(*v)) << col.header;
                ++derived_checked;
            }
        }
    }
    EXPECT_GE(derived_checked, 6u); // hot, leaf and cold have every ratio
#endif
}

} // namespace
} // namespace cpcprof::guitest
