// SPDX-License-Identifier: MIT
// The filter stack and the timeline's data (gui/model/sample_filter.h,
// timeline.h) on folded-stack profiles: a filtered profile has the
// numbers Query::open gives with the same filter (what `cpcprof report
// --pid/--tid/--cpu/--time` prints), steps combine, leaving a thread out
// removes exactly its cost, and the timeline's densities add up to the
// threads' and the processors' costs.
#include "tests/gui/model/model_test_util.h"
#include "tests/storage/helpers.h" // tests/storage: write_off_cpu_profile

#include "gui/model/cost_tree.h"
#include "gui/model/sample_filter.h"
#include "gui/model/timeline.h"

#include <atomic>
#include <map>

namespace cpcprof::guitest {
namespace {

using namespace gui;
using cpcprof::analysis::Query;

// Lines: 1 ms apart in this order; threads 100 and 101 of pid 100.
const std::vector<std::string> kLines = {"main;a;b 10 1000 7",      "101:worker;spin 6 1000 3",
                                         "main;a 4 1000 1",         "...;b 3 1000 2",
                                         "main;c[inline] 5 1000 9", "101:worker;spin;b 2 1000 4"};

// Samples that say their processor (format 5, a system-wide or attached
// recording): both threads ran on CPU 0 and CPU 1 in turn, and one line
// is of a sample that does not say.
const std::vector<std::string> kCpuLines = {
    "cpu0/main;a;b 10 1000 7", "cpu1/101:worker;spin 6 1000 3",
    "cpu1/main;a 4 1000 1",    "cpu0/101:worker;spin;b 2 1000 4",
    "main;c 5 1000 9",         "cpu3/main;a;b 1 1000 2"};

struct Filters : ProfileTest {
    // The profile's folded lines.
    virtual const std::vector<std::string> &lines() const { return kLines; }
    void SetUp() override {
        ProfileTest::SetUp();
        ASSERT_NO_FATAL_FAILURE(load_folded({"cycles", "misses"}, lines(), 1000));
    }
    ProfilePtr filtered(const std::vector<FilterStep> &steps) {
        std::atomic<bool> cancel{false};
        std::string error;
        ProfilePtr p = filter_profile(profile, steps, cancel, &error);
        EXPECT_TRUE(p) << error;
        return p;
    }
    // The time of the first kept sample of thread tid, and of the last.
    std::pair<int64_t, int64_t> span_of(int tid) const {
        const Query &q = *profile->query;
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (const auto &s : q.kept_samples())
            if (q.threads()[q.stack_thread_costs()[s.stack_thread].thread].tid == tid) {
                first = std::min(first, s.time_ns);
                last = std::max(last, s.time_ns);
            }
        return {first, last};
    }
};

// Function totals by name; (function path) -> total of the top-down tree.
std::map<std::string, std::pair<cpcprof::analysis::Cost, cpcprof::analysis::Cost>>
by_function(const Query &q) {
    std::map<std::string, std::pair<cpcprof::analysis::Cost, cpcprof::analysis::Cost>> out;
    for (size_t f = 0; f < q.functions().size(); ++f)
        out[q.functions()[f].name] = {q.function_self()[f], q.function_total()[f]};
    return out;
}

std::map<std::string, cpcprof::analysis::Cost> by_path(const CostTree &t) {
    std::map<std::string, cpcprof::analysis::Cost> out;
    for (uint32_t n = 1; n < t.size(); ++n) {
        std::string path;
        for (uint32_t p : path_to(t, n))
            path += t.name(p) + ";";
        out[path] = t.node(n).total;
    }
    return out;
}

bool same(const cpcprof::analysis::Cost &a, const cpcprof::analysis::Cost &b) {
    return a.samples == b.samples && a.values == b.values;
}

// Everything the views read, against a Query opened with filter f.
void expect_like_open(const ProfileData &mine, const std::string &file,
                      const cpcprof::analysis::QueryFilter &f) {
    std::string error;
    auto theirs = Query::open(file, f, &error);
    ASSERT_TRUE(theirs) << error;
    const Query &q = *mine.query;
    EXPECT_TRUE(same(q.total(), theirs->total()));
    EXPECT_EQ(q.samples_kept(), theirs->samples_kept());
    EXPECT_EQ(q.samples_read(), theirs->samples_read());
    EXPECT_EQ(q.samples_complete(), theirs->samples_complete());
    EXPECT_EQ(q.stack_count(), theirs->stack_count());
    EXPECT_EQ(q.truncated_function() == Query::kNoFunction,
              theirs->truncated_function() == Query::kNoFunction);
    auto mf = by_function(q), tf = by_function(*theirs);
    ASSERT_EQ(mf.size(), tf.size());
    for (const auto &[name, cost] : tf) {
        ASSERT_TRUE(mf.count(name)) << name;
        EXPECT_TRUE(same(mf[name].first, cost.first)) << name << " self";
        EXPECT_TRUE(same(mf[name].second, cost.second)) << name << " total";
    }
    ASSERT_EQ(q.threads().size(), theirs->threads().size());
    for (size_t t = 0; t < q.threads().size(); ++t) {
        EXPECT_EQ(q.threads()[t].tid, theirs->threads()[t].tid);
        EXPECT_TRUE(same(q.threads()[t].cost, theirs->threads()[t].cost));
    }
    auto theirs_data = std::make_shared<ProfileData>();
    theirs_data->query = std::move(theirs);
    std::atomic<bool> cancel{false};
    ASSERT_TRUE(build_views(*theirs_data, cancel, &error));
    ProfilePtr mp(&mine, [](const ProfileData *) {});
    auto mt = by_path(top_down_tree(mp)), tt = by_path(top_down_tree(theirs_data));
    EXPECT_EQ(mt.size(), tt.size());
    for (const auto &[path, cost] : tt)
        EXPECT_TRUE(mt.count(path) && same(mt[path], cost)) << path;
    auto mb = by_path(bottom_up_tree(mp)), tb = by_path(bottom_up_tree(theirs_data));
    EXPECT_EQ(mb.size(), tb.size());
    ASSERT_TRUE(mine.hotspots && theirs_data->hotspots);
    EXPECT_EQ(mine.hotspots->size(), theirs_data->hotspots->size());
}

TEST_F(Filters, TimeRangeGivesWhatOpenWithTheRangeGives) {
    // Samples 8 to 23 (ms): the end of main;a;b, all of the first spin,
    // part of main;a.
    int64_t t0 = profile->query->kept_samples()[0].time_ns;
    FilterStep s;
    s.time = TimeRange{t0 + 8'000'000, t0 + 18'000'000};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 10u);
    EXPECT_LT(p->query->total().samples, profile->query->total().samples);
    auto f = as_query_filter({s});
    ASSERT_TRUE(f);
    EXPECT_EQ(*f->from_ns, t0 + 8'000'000);
    EXPECT_EQ(*f->to_ns, t0 + 18'000'000);
    expect_like_open(*p, profile->path, *f);
}

TEST_F(Filters, OneThreadGivesWhatOpenWithTheTidGives) {
    FilterStep s;
    s.only = {{100, 101}};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 8u);
    // worker's stacks never reach main, a or c: those are gone, and so is
    // "[truncated]" (no cut stack in 101).
    for (const auto &fn : p->query->functions())
        EXPECT_TRUE(fn.name != "main" && fn.name != "c") << fn.name;
    EXPECT_EQ(p->query->truncated_function(), Query::kNoFunction);
    cpcprof::analysis::QueryFilter f;
    f.tid = 101;
    EXPECT_EQ(as_query_filter({s})->tid, 101);
    expect_like_open(*p, profile->path, f);
}

TEST_F(Filters, StepsCombineAndNarrowAgain) {
    int64_t t0 = profile->query->kept_samples()[0].time_ns;
    FilterStep time, pid, tid;
    time.time = TimeRange{t0, t0 + 20'000'000};
    pid.pid = 100;
    tid.only = {{100, 100}};
    ProfilePtr p = filtered({time, pid, tid});
    ASSERT_TRUE(p);
    cpcprof::analysis::QueryFilter f;
    f.from_ns = t0;
    f.to_ns = t0 + 20'000'000;
    f.pid = 100;
    f.tid = 100;
    auto cli = as_query_filter({time, pid, tid});
    ASSERT_TRUE(cli);
    EXPECT_EQ(cli->from_ns, f.from_ns);
    EXPECT_EQ(cli->to_ns, f.to_ns);
    EXPECT_EQ(cli->pid, f.pid);
    EXPECT_EQ(cli->tid, f.tid);
    expect_like_open(*p, profile->path, f);
    // A filtered profile keeps its samples: narrowing it again gives the
    // same as narrowing the loaded one at once.
    std::atomic<bool> cancel{false};
    std::string error;
    ProfilePtr first = filtered({time});
    ASSERT_TRUE(first);
    ProfilePtr again = filter_profile(first, {pid, tid}, cancel, &error);
    ASSERT_TRUE(again) << error;
    expect_like_open(*again, profile->path, f);
    // Ranges that do not meet keep nothing.
    FilterStep late;
    late.time = TimeRange{t0 + 25'000'000, t0 + 30'000'000};
    ProfilePtr none = filtered({time, late});
    ASSERT_TRUE(none);
    EXPECT_EQ(none->query->samples_kept(), 0u);
    EXPECT_EQ(as_query_filter({time, late})->to_ns, as_query_filter({time, late})->from_ns);
}

TEST_F(Filters, LeavingAThreadOutRemovesItsCost) {
    FilterStep s;
    s.without = {{100, 101}};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    EXPECT_FALSE(as_query_filter({s})); // report has no option for it
    const Query &q = *profile->query;
    cpcprof::analysis::Cost worker;
    for (const auto &t : q.threads())
        if (t.tid == 101)
            worker = t.cost;
    ASSERT_EQ(worker.samples, 8u);
    EXPECT_EQ(p->query->total().samples, q.total().samples - worker.samples);
    for (size_t e = 0; e < q.events().size(); ++e)
        EXPECT_EQ(p->query->total().values[e], q.total().values[e] - worker.values[e]);
    // Which is the other thread alone.
    cpcprof::analysis::QueryFilter f;
    f.tid = 100;
    expect_like_open(*p, profile->path, f);
    EXPECT_EQ(describe(s), "without thread 101");
}

// A profile with off-CPU time (record --off-cpu): its stretches are kept
// beside the samples, and a filter keeps both as report's does.
struct OffCpuFilters : ProfileTest {};

TEST_F(OffCpuFilters, AThreadsWaitsGoWithIt) {
    ASSERT_NO_FATAL_FAILURE(storagetest::write_off_cpu_profile(path("off.cpcprof")));
    ASSERT_NO_FATAL_FAILURE(load(path("off.cpcprof")));
    const Query &q = *profile->query;
    const int off = q.off_cpu_event();
    ASSERT_GE(off, 0);
    FilterStep s;
    s.without = {{100, 101}};
    std::atomic<bool> cancel{false};
    std::string error;
    ProfilePtr p = filter_profile(profile, {s}, cancel, &error);
    ASSERT_TRUE(p) << error;
    EXPECT_EQ(p->query->total().samples, 4u);
    EXPECT_EQ(p->query->total().values[size_t(off)], 100'000'000u) << "thread 100's waits";
    cpcprof::analysis::QueryFilter f;
    f.tid = 100;
    expect_like_open(*p, profile->path, f);
}

// The timeline draws a wait over the time it took, not as an instant:
// thread 100 waited 14-34, 40-70 and 80-130 ms into a run of 140 ms.
TEST_F(OffCpuFilters, TheTimelineSpreadsEachWaitOverItsTime) {
    ASSERT_NO_FATAL_FAILURE(storagetest::write_off_cpu_profile(path("off.cpcprof")));
    ASSERT_NO_FATAL_FAILURE(load(path("off.cpcprof")));
    const Query &q = *profile->query;
    const int off = q.off_cpu_event(), wall = q.wall_clock_event();
    ASSERT_GE(off, 0);
    ASSERT_GE(wall, 0);
    Timeline t = make_timeline(q);
    ASSERT_EQ(t.duration_ns, 140'000'000);
    size_t main_row = t.rows.size(), worker_row = t.rows.size();
    for (size_t r = 0; r < t.rows.size(); ++r) {
        if (t.rows[r].is_thread() && t.rows[r].id.tid == 100)
            main_row = r;
        if (t.rows[r].is_thread() && t.rows[r].id.tid == 101)
            worker_row = r;
    }
    ASSERT_LT(main_row, t.rows.size());
    ASSERT_LT(worker_row, t.rows.size());
    constexpr uint64_t ms = 1'000'000;
    auto bins = t.density(q, off, 14); // 10 ms each
    const std::vector<uint64_t> waits = {0, 6 * ms,  10 * ms, 4 * ms,  10 * ms, 10 * ms, 10 * ms,
                                         0, 10 * ms, 10 * ms, 10 * ms, 10 * ms, 10 * ms, 0};
    EXPECT_EQ(bins[main_row], waits);
    // The process's row is its threads' sum; every wait is there whole.
    uint64_t worker_sum = 0, process_sum = 0;
    for (size_t b = 0; b < 14; ++b) {
        worker_sum += bins[worker_row][b];
        process_sum += bins[main_row - 1][b];
    }
    EXPECT_EQ(worker_sum, 7 * ms + 700'000);
    EXPECT_EQ(process_sum, 107 * ms + 700'000);
    // Wall-clock: the 4 ms of samples at 10-13 ms beside the waits.
    bins = t.density(q, wall, 14);
    EXPECT_EQ(bins[main_row][1], 10 * ms);
    EXPECT_EQ(bins[main_row][2], 10 * ms);
    // A window holds the part of each wait inside it: 25-35 ms and 35-45 ms.
    bins = t.density(q, off, 2, {25 * ms, 45 * ms});
    EXPECT_EQ(bins[main_row], (std::vector<uint64_t>{9 * ms, 5 * ms}));
    // The clock's samples are instants still: none waited.
    bins = t.density(q, 0, 14);
    EXPECT_EQ(bins[main_row][1], 4 * ms);
    EXPECT_EQ(bins[main_row][2], 0u);
}

TEST_F(Filters, NoStepsKeepEverything) {
    ProfilePtr p = filtered({});
    ASSERT_TRUE(p);
    expect_like_open(*p, profile->path, {});
    EXPECT_EQ(describe(FilterStep{}), "all samples");
}

// A profile loaded with a disposer is freed by it, where its last
// reference goes; so is every profile filtered from it (the viewer frees
// them off its GUI thread).
TEST_F(Filters, ProfilesAreFreedByTheDisposerTheyWereLoadedWith) {
    std::vector<ProfileData *> freed;
    Disposer dispose = [&](ProfileData *p) {
        freed.push_back(p);
        delete p;
    };
    std::atomic<bool> cancel{false};
    std::string error;
    ProfilePtr loaded = load_profile(profile->path, cancel, &error, dispose);
    ASSERT_TRUE(loaded) << error;
    EXPECT_TRUE(disposer_of(loaded));
    EXPECT_FALSE(disposer_of(profile)) << "loaded without one";
    FilterStep s;
    s.only = {{100, 101}};
    ProfilePtr narrowed = filter_profile(loaded, {s}, cancel, &error);
    ASSERT_TRUE(narrowed) << error;
    const ProfileData *a = loaded.get(), *b = narrowed.get();
    EXPECT_TRUE(freed.empty());
    narrowed.reset();
    ASSERT_EQ(freed.size(), 1u);
    EXPECT_EQ(freed[0], b);
    loaded.reset();
    ASSERT_EQ(freed.size(), 2u);
    EXPECT_EQ(freed[1], a);
}

TEST_F(Filters, DescribeNamesEveryPart) {
    FilterStep s;
    s.time = TimeRange{250'000'000, 1'500'000'000};
    s.pid = 7;
    s.only = {{7, 8}, {7, 9}};
    EXPECT_EQ(describe(s), "0.250-1.500 s, only process 7, only threads 8, 9");
}

TEST_F(Filters, TimelineRowsAndDensitiesAddUpToThreadCosts) {
    const Query &q = *profile->query;
    Timeline t = make_timeline(q);
    ASSERT_EQ(t.rows.size(), 3u); // process 100, threads 100 and 101
    EXPECT_TRUE(t.rows[0].process);
    EXPECT_EQ(t.rows[0].id.pid, 100);
    EXPECT_EQ(t.rows[0].cost.samples, q.total().samples);
    EXPECT_EQ(t.rows[1].label, "t100 (100)");
    EXPECT_GE(t.duration_ns, span_of(101).second + 1);
    for (int event : {0, 1}) {
        auto bins = t.density(q, event, 37);
        ASSERT_EQ(bins.size(), 3u);
        for (size_t r = 0; r < 3; ++r) {
            uint64_t sum = 0;
            for (uint64_t v : bins[r])
                sum += v;
            EXPECT_EQ(sum, t.rows[r].cost.values[event]) << "row " << r << " event " << event;
        }
    }
    // Thread 101's samples fall in the slices of its time only.
    auto [first, last] = span_of(101);
    auto bins = t.density(q, 0, 100);
    for (size_t b = 0; b < 100; ++b) {
        if (b < t.bin_of(first, 100) || b > t.bin_of(last, 100)) {
            EXPECT_EQ(bins[2][b], 0u) << b;
        }
    }
    EXPECT_EQ(t.bin_of(-5, 100), 0u);
    EXPECT_EQ(t.bin_of(t.duration_ns * 2, 100), 99u);
}

// A zoomed timeline: the slices cut the window, and only the samples in
// [from, to) are in them, each in the slice of its time.
TEST_F(Filters, TimelineDensityOverAWindowHoldsOnlyItsSamples) {
    const Query &q = *profile->query;
    Timeline t = make_timeline(q);
    const TimeRange window{t.duration_ns / 3, t.duration_ns * 2 / 3};
    const size_t n = 50;
    auto bins = t.density(q, 0, n, window);
    std::vector<uint64_t> expected(n, 0);
    uint64_t outside = 0;
    auto samples = q.kept_samples();
    for (size_t i = 0; i < samples.size(); ++i) {
        const int64_t time = samples[i].time_ns;
        if (time < window.from_ns || time >= window.to_ns) {
            ++outside;
            continue;
        }
        auto b = size_t((time - window.from_ns) * int64_t(n) / (window.to_ns - window.from_ns));
        expected[b] += q.kept_values(i)[0];
    }
    EXPECT_GT(outside, 0u) << "the window leaves samples out";
    EXPECT_EQ(bins[0], expected) << "the process row, slice by slice";
    EXPECT_EQ(t.bin_of(window.from_ns, n, window), 0u);
    EXPECT_EQ(t.bin_of(window.to_ns - 1, n, window), n - 1);
    EXPECT_EQ(t.time_of_bin(0, n, window), window.from_ns);
    EXPECT_EQ(t.time_of_bin(double(n), n, window), window.to_ns);
}

struct CpuFilters : Filters {
    const std::vector<std::string> &lines() const override { return kCpuLines; }
};

// One row per processor that took samples, after the processes, each
// with the samples taken on it; their densities add up to those costs.
TEST_F(CpuFilters, TimelineHasARowPerProcessorWithItsSamples) {
    const Query &q = *profile->query;
    Timeline t = make_timeline(q);
    ASSERT_EQ(t.rows.size(), 6u); // process 100, threads 100 and 101, CPUs 0, 1, 3
    EXPECT_TRUE(t.rows[0].process);
    EXPECT_TRUE(t.rows[1].is_thread() && t.rows[2].is_thread());
    const int cpus[] = {0, 1, 3};
    const uint64_t samples[] = {12, 10, 1}, misses[] = {10 * 7 + 2 * 4, 6 * 3 + 4 * 1, 2};
    for (size_t i = 0; i < 3; ++i) {
        const TimelineRow &row = t.rows[3 + i];
        EXPECT_EQ(row.cpu, cpus[i]);
        EXPECT_FALSE(row.process || row.is_thread());
        EXPECT_EQ(row.label, "CPU " + std::to_string(cpus[i]));
        EXPECT_EQ(row.cost.samples, samples[i]) << row.label;
        EXPECT_EQ(row.cost.values[1], misses[i]) << row.label;
    }
    for (int event : {0, 1}) {
        auto bins = t.density(q, event, 41);
        ASSERT_EQ(bins.size(), t.rows.size());
        for (size_t r = 0; r < t.rows.size(); ++r) {
            uint64_t sum = 0;
            for (uint64_t v : bins[r])
                sum += v;
            EXPECT_EQ(sum, t.rows[r].cost.values[event]) << t.rows[r].label << " event " << event;
        }
    }
}

// A profile that never says (the folded lines of the other tests): no
// processor rows.
TEST_F(Filters, TimelineHasNoProcessorRowsWhereTheProfileDoesNotSay) {
    for (const TimelineRow &row : make_timeline(*profile->query).rows)
        EXPECT_LT(row.cpu, 0) << row.label;
}

// Keeping one processor gives what `cpcprof report --cpu` gives; a sample
// that does not say its processor is on none.
TEST_F(CpuFilters, OneProcessorGivesWhatOpenWithTheCpuGives) {
    FilterStep s;
    s.cpus = {1};
    ProfilePtr p = filtered({s});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 10u);
    cpcprof::analysis::QueryFilter f;
    f.cpu = 1;
    expect_like_open(*p, profile->path, f);
    auto qf = as_query_filter({s});
    ASSERT_TRUE(qf);
    EXPECT_EQ(qf->cpu, 1);
    EXPECT_EQ(describe(s), "only CPU 1");
}

// Two processors: their samples, more than one CPU can say on the
// command line; steps intersect.
TEST_F(CpuFilters, ProcessorStepsKeepTheirSamplesAndIntersect) {
    FilterStep two;
    two.cpus = {0, 3};
    ProfilePtr p = filtered({two});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 13u);
    EXPECT_FALSE(as_query_filter({two})) << "--cpu takes one processor";
    EXPECT_EQ(describe(two), "only CPUs 0, 3");
    FilterStep zero;
    zero.cpus = {0};
    p = filtered({two, zero});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 12u);
    FilterStep one;
    one.cpus = {1};
    p = filtered({two, one});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 0u);
    EXPECT_FALSE(as_query_filter({zero, one})) << "no one processor keeps both";
    // With a thread: the worker's samples on CPU 0.
    FilterStep worker;
    worker.only = {{100, 101}};
    p = filtered({zero, worker});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->query->samples_kept(), 2u);
    cpcprof::analysis::QueryFilter f;
    f.cpu = 0;
    f.tid = 101;
    expect_like_open(*p, profile->path, f);
}

} // namespace
} // namespace cpcprof::guitest
