// SPDX-License-Identifier: MIT
// The filter stack on a real recording of cpcprof-demo (two threads)
// against `cpcprof report` with the same filters: --time over the middle
// of the run, --tid of the worker thread, --pid; a thread left out gives
// the whole minus report --tid of that thread.  The item models over the
// filtered profile pass QAbstractItemModelTester.
#include "tests/view_common/view_harness.h"

#include "gui/itemmodels/cost_proxy.h"
#include "gui/itemmodels/table_model.h"
#include "gui/itemmodels/tree_model.h"
#include "gui/model/cost_tree.h"
#include "gui/model/sample_filter.h"
#include "gui/model/timeline.h"
#include "profiler/analysis/hotspots.h"

#include <QAbstractItemModelTester>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cinttypes>
#include <cstdio>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using nlohmann::json;

struct FilteredReal : ::testing::Test {
    ProfilePtr loaded;
    std::string file;
    void SetUp() override {
        SKIP_WITHOUT_DEMO_RECORDING();
        file = test::demo_profile();
        ASSERT_FALSE(file.empty());
        std::atomic<bool> cancel{false};
        std::string error;
        loaded = load_profile(file, cancel, &error);
        ASSERT_TRUE(loaded) << error;
        ASSERT_GE(loaded->query->threads().size(), 2u);
    }
    json report(const std::vector<std::string> &args) {
        test::TempDir dir;
        std::vector<std::string> argv = {"report", file, "--format", "json", "--top", "0"};
        argv.insert(argv.end(), args.begin(), args.end());
        test::RunResult r = test::cpcprof(dir, argv);
        EXPECT_EQ(r.status, 0) << r.err;
        return r.status == 0 ? json::parse(r.out) : json::object();
    }
    ProfilePtr filtered(const std::vector<FilterStep> &steps) {
        std::atomic<bool> cancel{false};
        std::string error;
        ProfilePtr p = filter_profile(loaded, steps, cancel, &error);
        EXPECT_TRUE(p) << error;
        return p;
    }
    // The thread with the fewest samples (the demo's worker).
    ThreadId worker() const {
        const auto &ts = loaded->query->threads();
        const auto *w = &ts[0];
        for (const auto &t : ts)
            if (t.cost.samples < w->cost.samples)
                w = &t;
        return {w->pid, w->tid};
    }
};

std::vector<uint64_t> values(const json &cost) {
    return cost.at("values").get<std::vector<uint64_t>>();
}

std::string seconds(int64_t ns) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%09" PRId64, ns / 1'000'000'000,
                  ns % 1'000'000'000);
    return buf;
}

// The profile's totals and every function row are report's.
void expect_report(const ProfileData &p, const json &theirs) {
    const cpcprof::analysis::Query &q = *p.query;
    ASSERT_TRUE(theirs.contains("rows"));
    EXPECT_EQ(q.samples_kept(), theirs.at("run").at("samples").at("kept").get<uint64_t>());
    for (size_t e = 0; e < q.events().size(); ++e)
        EXPECT_EQ(q.total().values[e], theirs.at("events").at(e).at("total").get<uint64_t>());
    ASSERT_TRUE(p.hotspots);
    ASSERT_EQ(p.hotspots->size(), theirs.at("rows").size());
    for (const analysis::HotspotRow &r : *p.hotspots) {
        const auto &fn = q.functions()[r.function_index];
        const json *row = nullptr;
        for (const json &t : theirs.at("rows"))
            if (t.at("function") == fn.name && t.at("module") == fn.module)
                row = &t;
        ASSERT_NE(row, nullptr) << fn.name;
        EXPECT_EQ(r.self.samples, row->at("self").at("samples").get<uint64_t>()) << fn.name;
        EXPECT_EQ(r.total.samples, row->at("total").at("samples").get<uint64_t>()) << fn.name;
        EXPECT_EQ(r.self.values, values(row->at("self"))) << fn.name;
        EXPECT_EQ(r.total.values, values(row->at("total"))) << fn.name;
    }
    // The flame graph's tree sums to the same.
    CostTree td = top_down_tree(std::shared_ptr<const ProfileData>(&p, [](auto *) {}));
    ASSERT_TRUE(td.tree);
    EXPECT_EQ(td.node(0).total.samples, q.samples_kept());
}

TEST_F(FilteredReal, TimeRangeIsReportTime) {
    Timeline t = make_timeline(*loaded->query);
    // The middle half, in whole microseconds (so that seconds print exactly).
    int64_t from = t.duration_ns / 4 / 1000 * 1000, to = t.duration_ns * 3 / 4 / 1000 * 1000;
    FilterStep s;
    s.time = TimeRange{from, to};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    EXPECT_GT(p->query->samples_kept(), 0u);
    EXPECT_LT(p->query->samples_kept(), loaded->query->samples_kept());
    expect_report(*p, report({"--time", seconds(from) + "," + seconds(to)}));
}

TEST_F(FilteredReal, ThreadAndProcessAreReportTidAndPid) {
    ThreadId w = worker();
    FilterStep only;
    only.only = {w};
    ProfilePtr p = filtered({only});
    ASSERT_TRUE(p);
    expect_report(*p, report({"--tid", std::to_string(w.tid)}));
    FilterStep pid;
    pid.pid = w.pid;
    p = filtered({pid});
    ASSERT_TRUE(p);
    expect_report(*p, report({"--pid", std::to_string(w.pid)}));
    // Both, after a time range: report with all three.
    Timeline t = make_timeline(*loaded->query);
    FilterStep time;
    time.time = TimeRange{0, t.duration_ns / 2 / 1000 * 1000};
    p = filtered({time, pid, only});
    ASSERT_TRUE(p);
    expect_report(*p, report({"--time", "," + seconds(time.time->to_ns), "--pid",
                              std::to_string(w.pid), "--tid", std::to_string(w.tid)}));
}

TEST_F(FilteredReal, LeavingTheWorkerOutIsTheWholeLessItsReport) {
    ThreadId w = worker();
    FilterStep s;
    s.without = {w};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    json all = report({}), its = report({"--tid", std::to_string(w.tid)});
    ASSERT_TRUE(all.contains("events") && its.contains("events"));
    EXPECT_EQ(p->query->samples_kept(), all.at("run").at("samples").at("kept").get<uint64_t>() -
                                            its.at("run").at("samples").at("kept").get<uint64_t>());
    for (size_t e = 0; e < p->query->events().size(); ++e)
        EXPECT_EQ(p->query->total().values[e],
                  all.at("events").at(e).at("total").get<uint64_t>() -
                      its.at("events").at(e).at("total").get<uint64_t>());
}

TEST_F(FilteredReal, ModelsOfAFilteredProfilePassTheModelTester) {
    Timeline t = make_timeline(*loaded->query);
    FilterStep s;
    s.time = TimeRange{t.duration_ns / 3, t.duration_ns};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    CostTreeModel td, bu;
    HotspotTableModel table;
    CostProxy ptd, ptable;
    ptd.setSourceModel(&td);
    ptable.setSourceModel(&table);
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemModel *m :
         std::initializer_list<QAbstractItemModel *>{&td, &bu, &table, &ptd, &ptable})
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            m, QAbstractItemModelTester::FailureReportingMode::Fatal));
    // Loaded, then filtered, then loaded again: what the window does.
    for (const ProfilePtr &profile : {loaded, p, loaded}) {
        td.setTree(top_down_tree(profile));
        bu.setTree(bottom_up_tree(profile));
        table.setProfile(profile);
        EXPECT_EQ(size_t(table.rowCount()), profile->hotspots->size());
        ptd.sort(1, Qt::DescendingOrder);
        QString error;
        ASSERT_TRUE(ptable.setFilter("a", false, &error)) << error.toStdString();
        ASSERT_TRUE(ptable.setFilter("", false, &error));
    }
}

} // namespace
} // namespace cpcprof::guitest
