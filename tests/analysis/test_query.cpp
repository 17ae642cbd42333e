// SPDX-License-Identifier: MIT
// Query and CallTree: costs per function, line and thread, filters, inline
// chains, recursion and unsymbolized code, on a small profile whose every
// sample is known.
#include "profiler/analysis/query.h"
#include "tests/storage/helpers.h"

#include <algorithm>
#include <map>

using namespace storagetest;
using namespace cpcprof::analysis;

namespace {

struct QueryTest : StorageTest {
    std::string file;

    void SetUp() override {
        StorageTest::SetUp();
        file = path("q.cpcprof");
        write_known_profile(file);
    }

    std::unique_ptr<Query> open(const QueryFilter &f = {}) {
        std::string error;
        auto q = Query::open(file, f, &error);
        EXPECT_TRUE(q) << error;
        return q;
    }
};

uint32_t fn(const Query &q, const std::string &name) {
    auto ids = q.find_functions(name);
    EXPECT_EQ(ids.size(), 1u) << name;
    return ids.empty() ? UINT32_MAX : ids[0];
}

std::vector<std::string> names(const Query &q, std::span<const PathFrame> s) {
    std::vector<std::string> out;
    for (const PathFrame &f : s)
        out.push_back(q.functions()[f.function].name);
    return out;
}

TEST_F(QueryTest, SelfAndTotalPerFunctionCountRecursionOnce) {
    auto q = open();
    ASSERT_TRUE(q);
    EXPECT_EQ(q->samples_kept(), 11u);
    EXPECT_EQ(q->total().samples, 11u);
    EXPECT_EQ(q->total().values[0], 11'000'000u);
    EXPECT_EQ(q->total().values[1], 17u);
    const Cost &square = q->function_self()[fn(*q, "square")];
    EXPECT_EQ(square.samples, 6u);
    EXPECT_EQ(square.values[1], 12u);
    EXPECT_EQ(q->function_self()[fn(*q, "compute")].samples, 0u);
    EXPECT_EQ(q->function_total()[fn(*q, "compute")].samples, 6u);
    // Three frames of recurse per sample: each sample counts once.
    EXPECT_EQ(q->function_total()[fn(*q, "recurse")].samples, 4u);
    EXPECT_EQ(q->function_self()[fn(*q, "recurse")].samples, 4u);
    EXPECT_EQ(q->function_total()[fn(*q, "main")].samples, 10u);
}

TEST_F(QueryTest, InlinedCallsAreFramesOrFoldIntoTheirCaller) {
    auto q = open();
    ASSERT_TRUE(q);
    size_t found = 0;
    for (size_t i = 0; i < q->stack_count(); ++i) {
        if (names(*q, q->stack(i)) == std::vector<std::string>{"main", "compute", "square"}) {
            ++found;
            EXPECT_TRUE(q->stack(i)[2].inlined);
            EXPECT_FALSE(q->stack(i)[1].inlined);
            EXPECT_EQ(q->files()[q->stack(i)[2].file], "/src/m.h");
            EXPECT_EQ(q->stack(i)[1].line, 20u);
        }
    }
    EXPECT_EQ(found, 1u);

    QueryFilter f;
    f.inline_frames = false;
    auto flat = open(f);
    ASSERT_TRUE(flat);
    EXPECT_TRUE(flat->find_functions("square").empty());
    EXPECT_EQ(flat->function_self()[fn(*flat, "compute")].samples, 6u);
}

TEST_F(QueryTest, CodeWithoutSymbolsIsNamedByModuleAndOffset) {
    auto q = open();
    ASSERT_TRUE(q);
    uint32_t id = fn(*q, "libx.so+0x500");
    ASSERT_NE(id, UINT32_MAX);
    EXPECT_FALSE(q->functions()[id].has_symbols);
    EXPECT_EQ(q->functions()[id].module, "/lib/libx.so");
    EXPECT_EQ(q->function_self()[id].values[1], 5u);
    EXPECT_EQ(q->modules_without_symbols(), std::vector<std::string>{"/lib/libx.so"});
    ASSERT_EQ(q->modules_lacking_names().size(), 1u);
    EXPECT_EQ(q->modules_lacking_names()[0].path, "/lib/libx.so");
    EXPECT_EQ(q->modules_lacking_names()[0].cost.samples, 1u);
}

// A module with symbols whose sampled code is not among them (a stripped
// library's .dynsym names its exports only) lacks names too, and is listed
// with its samples, most first; a module without symbols at all as well.
TEST_F(QueryTest, ModulesLackingNamesIncludeThoseWithSomeSymbols) {
    const std::string file2 = path("stripped.cpcprof");
    constexpr uint64_t kProg = 0x400000, kLib = 0x7f0000000000;
    std::string error;
    auto w = Writer::create(file2, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run());
    w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, "/opt/prog", "", kProg, kProg + 0x10000, 0, kStartMono});
    w->add_module({100, "/lib/libx.so", "", kLib, kLib + 0x10000, 0, kStartMono});
    const std::vector<uint64_t> values = {1'000'000, 0};
    int64_t t = kStartMono;
    auto add = [&](const std::vector<uint64_t> &frames, int n) {
        for (int i = 0; i < n; ++i)
            w->add_sample({100, 100, ++t, true, frames, values});
    };
    add({kProg + 0x9000, kProg + 0x1010}, 5); // main > an unnamed address of prog
    add({kLib + 0x500, kProg + 0x1010}, 2);   // main > libx.so, which has no symbols
    add({kProg + 0x1010}, 1);                 // main alone
    w->add_accounting(100, {8, 8, 0});
    ASSERT_TRUE(w->finish(t + 1, &error)) << error;
    auto s = SymbolWriter::open(file2, &error);
    ASSERT_TRUE(s) << error;
    const std::vector<SymbolFrame> main_frame = {{"main", "/src/a.c", 10, false}};
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path == "/opt/prog" && a.offset == 0x1010)
            s->add(a.module_id, a.offset, main_frame);
        s->set_module_symbols(a.module_id, a.path == "/opt/prog");
    }
    ASSERT_TRUE(s->finish(&error)) << error;

    auto q = Query::open(file2, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_EQ(q->modules_without_symbols(), std::vector<std::string>{"/lib/libx.so"});
    auto lacking = q->modules_lacking_names();
    ASSERT_EQ(lacking.size(), 2u);
    EXPECT_EQ(lacking[0].path, "/opt/prog");
    EXPECT_EQ(lacking[0].cost.samples, 5u);
    EXPECT_EQ(lacking[1].path, "/lib/libx.so");
    EXPECT_EQ(lacking[1].cost.samples, 2u);
}

TEST_F(QueryTest, TruncatedStacksAreKeptApart) {
    auto q = open();
    ASSERT_TRUE(q);
    size_t truncated = 0;
    for (size_t i = 0; i < q->stack_count(); ++i)
        if (q->stack_truncated(i)) {
            ++truncated;
            EXPECT_EQ(names(*q, q->stack(i)), (std::vector<std::string>{"recurse", "recurse"}));
        }
    EXPECT_EQ(truncated, 1u);
}

// Pictures put the cut stacks under one "[truncated]" root (as the
// exports do): a tree of the known profile with the marker has two roots,
// main (the 10 complete stacks) and [truncated] > recurse > recurse.
TEST_F(QueryTest, TruncatedStacksSitUnderTheMarkerWhenAsked) {
    auto q = open();
    ASSERT_TRUE(q);
    EXPECT_EQ(q->samples_complete(), 10u);
    ASSERT_NE(q->truncated_function(), Query::kNoFunction);
    EXPECT_EQ(q->functions()[q->truncated_function()].name, "[truncated]");
    EXPECT_EQ(q->function_total()[q->truncated_function()].samples, 0u); // no stack's frame

    auto roots_of = [&](const CallTree &t) {
        std::map<std::string, uint64_t> out;
        for (uint32_t n : t.nodes()[0].children)
            out[q->functions()[t.nodes()[n].function].name] = t.nodes()[n].total.samples;
        return out;
    };
    using Roots = std::map<std::string, uint64_t>;
    EXPECT_EQ(roots_of(CallTree::top_down(*q)), (Roots{{"main", 10}, {"recurse", 1}}));
    CallTree t = CallTree::top_down(*q, true);
    EXPECT_EQ(roots_of(t), (Roots{{"main", 10}, {"[truncated]", 1}}));
    EXPECT_EQ(t.nodes()[0].total.samples, 11u);
    for (size_t n = 1; n < t.nodes().size(); ++n) {
        EXPECT_GT(t.nodes()[n].total.samples, 0u) << "node " << n << " reached by no stack";
        EXPECT_LT(t.nodes()[n].parent, n);
        if (t.nodes()[n].depth == 3 &&
            t.nodes()[t.nodes()[t.nodes()[n].parent].parent].function == q->truncated_function()) {
            EXPECT_EQ(t.nodes()[n].self.samples, 1u); // the cut stack's leaf
        }
    }
    EXPECT_EQ(t.nodes().size(), CallTree::top_down(*q).nodes().size() + 1);

    // Bottom up, the marker is the cut stack's outermost caller: recurse
    // (the leaf) < recurse < [truncated].
    CallTree bu = CallTree::bottom_up(*q, true);
    size_t markers = 0;
    for (const CallTree::Node &n : bu.nodes())
        if (n.function == q->truncated_function()) {
            ++markers;
            EXPECT_EQ(n.depth, 3u);
            EXPECT_EQ(n.total.samples, 1u);
            EXPECT_TRUE(n.children.empty());
        }
    EXPECT_EQ(markers, 1u);
    EXPECT_EQ(bu.nodes()[0].total.samples, 11u);
    EXPECT_EQ(bu.nodes().size(), CallTree::bottom_up(*q).nodes().size() + 1);

    // Thread 100 has no cut stack: no marker, the same tree either way.
    QueryFilter f;
    f.tid = 100;
    auto q100 = open(f);
    ASSERT_TRUE(q100);
    EXPECT_EQ(q100->samples_complete(), q100->samples_kept());
    EXPECT_EQ(q100->truncated_function(), Query::kNoFunction);
    EXPECT_EQ(CallTree::top_down(*q100, true).nodes().size(),
              CallTree::top_down(*q100).nodes().size());
}

// A cut stack with the very frames of a complete one shares its frame
// nodes in the Query; under the marker they are two paths.
TEST_F(QueryTest, ACutStackSharingFramesWithACompleteOneIsApart) {
    const std::string shared = path("shared.cpcprof");
    std::string error;
    auto w = Writer::create(shared, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run());
    w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, "/opt/prog", "", 0x400000, 0x410000, 0, kStartMono});
    const std::vector<uint64_t> frames = {0x402000, 0x401000}, values = {1'000'000, 0};
    for (int i = 0; i < 4; ++i)
        w->add_sample({100, 100, kStartMono + i, i != 3, frames, values}); // the last one cut
    w->add_accounting(100, {4, 4, 0});
    ASSERT_TRUE(w->finish(kStartMono + 10, &error)) << error;
    auto q = Query::open(shared, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_EQ(q->samples_complete(), 3u);
    CallTree t = CallTree::top_down(*q, true);
    ASSERT_EQ(t.nodes()[0].children.size(), 2u);
    uint64_t under_marker = 0, beside = 0;
    for (uint32_t n : t.nodes()[0].children) {
        const CallTree::Node &root = t.nodes()[n];
        (root.function == q->truncated_function() ? under_marker : beside) = root.total.samples;
        ASSERT_EQ(root.children.size(), 1u);
    }
    EXPECT_EQ(under_marker, 1u);
    EXPECT_EQ(beside, 3u);
}

TEST_F(QueryTest, FiltersByThreadProcessAndTime) {
    QueryFilter f;
    f.tid = 101;
    auto q = open(f);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->samples_kept(), 2u);
    EXPECT_EQ(q->samples_read(), 11u);
    ASSERT_EQ(q->threads().size(), 1u);
    EXPECT_EQ(q->threads()[0].name, "worker");

    QueryFilter t;
    t.from_ns = 20'000'000;
    t.to_ns = 30'000'000; // [20 ms, 30 ms): the three recurse samples
    auto w = open(t);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->samples_kept(), 3u);
    EXPECT_EQ(w->function_total()[fn(*w, "recurse")].samples, 3u);

    QueryFilter p;
    p.pid = 999;
    auto none = open(p);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->samples_kept(), 0u);
    EXPECT_EQ(none->stack_count(), 0u);
}

TEST_F(QueryTest, StackCostsSplitByThread) {
    auto q = open();
    ASSERT_TRUE(q);
    // Known profile: thread 100 has the compute and recurse stacks, thread
    // 101 the libx stack and the truncated one; no stack is on both.
    const auto &split = q->stack_thread_costs();
    ASSERT_EQ(split.size(), 4u);
    std::map<int, uint64_t> samples_per_tid, faults_per_tid;
    std::vector<uint64_t> samples_per_stack(q->stack_count());
    for (const auto &st : split) {
        ASSERT_LT(st.stack, q->stack_count());
        ASSERT_LT(st.thread, q->threads().size());
        samples_per_tid[q->threads()[st.thread].tid] += st.cost.samples;
        faults_per_tid[q->threads()[st.thread].tid] += st.cost.values[1];
        samples_per_stack[st.stack] += st.cost.samples;
    }
    EXPECT_EQ(samples_per_tid[100], 9u);
    EXPECT_EQ(samples_per_tid[101], 2u);
    EXPECT_EQ(faults_per_tid[100], 12u);
    EXPECT_EQ(faults_per_tid[101], 5u);
    for (size_t i = 0; i < q->stack_count(); ++i)
        EXPECT_EQ(samples_per_stack[i], q->stack_cost(i).samples) << i;
    // First appearance order: compute (10 ms) before recurse (20 ms).
    EXPECT_EQ(names(*q, q->stack(split[0].stack)).back(), "square");
    EXPECT_EQ(names(*q, q->stack(split[1].stack)).back(), "recurse");

    QueryFilter f;
    f.tid = 101;
    auto w = open(f);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->stack_thread_costs().size(), 2u);
}

TEST_F(QueryTest, LineCostsSplitAFunctionByLine) {
    auto q = open();
    ASSERT_TRUE(q);
    std::map<uint32_t, uint64_t> main_total;
    for (const Query::LineCost &l : q->line_costs())
        if (q->functions()[l.function].name == "main")
            main_total[l.line] = l.total.samples;
    EXPECT_EQ(main_total, (std::map<uint32_t, uint64_t>{{10, 9}, {11, 1}}));
}

TEST_F(QueryTest, CallTreesTopDownBottomUpCallersAndCallees) {
    auto q = open();
    ASSERT_TRUE(q);
    uint32_t main_id = fn(*q, "main"), rec = fn(*q, "recurse"), sq = fn(*q, "square");

    CallTree td = CallTree::top_down(*q);
    EXPECT_EQ(td.nodes()[0].total.samples, 11u);
    const auto &roots = td.nodes()[0].children;
    auto main_root = std::find_if(roots.begin(), roots.end(),
                                  [&](uint32_t n) { return td.nodes()[n].function == main_id; });
    ASSERT_NE(main_root, roots.end());
    EXPECT_EQ(td.nodes()[*main_root].total.samples, 10u);
    EXPECT_EQ(td.nodes()[*main_root].self.samples, 0u);

    CallTree bu = CallTree::bottom_up(*q);
    for (uint32_t n : bu.nodes()[0].children)
        if (bu.nodes()[n].function == sq) {
            EXPECT_EQ(bu.nodes()[n].self.samples, 6u);
            EXPECT_TRUE(bu.nodes()[n].inlined);
        }

    // callers of recurse: recurse <- recurse <- recurse <- main, from the
    // innermost occurrence; the truncated stack adds recurse <- recurse.
    CallTree callers = CallTree::callers(*q, rec);
    ASSERT_EQ(callers.nodes()[0].children.size(), 1u);
    uint32_t r = callers.nodes()[0].children[0];
    EXPECT_EQ(callers.nodes()[r].total.samples, 4u);
    EXPECT_EQ(callers.nodes()[r].self.samples, 4u);
    uint32_t deepest = 0;
    for (const auto &n : callers.nodes())
        deepest = std::max(deepest, n.depth);
    EXPECT_EQ(deepest, 4u);

    // callees of main: compute (6), recurse (3), libx (1).
    CallTree callees = CallTree::callees(*q, main_id);
    ASSERT_EQ(callees.nodes()[0].children.size(), 1u);
    uint32_t m = callees.nodes()[0].children[0];
    EXPECT_EQ(callees.nodes()[m].total.samples, 10u);
    EXPECT_EQ(callees.nodes()[m].children.size(), 3u);
}

TEST_F(QueryTest, EventsAreFoundByName) {
    auto q = open();
    ASSERT_TRUE(q);
    EXPECT_EQ(q->event_index("page-faults"), 1);
    EXPECT_EQ(q->event_index("CPU-CLOCK"), 0);
    EXPECT_EQ(q->event_index("cycles"), -1);
}

TEST_F(QueryTest, ARefusedFileGivesTheReason) {
    write_bytes(file, {'n', 'o', 't', ' ', 's', 'q', 'l'});
    std::string error;
    EXPECT_EQ(Query::open(file, {}, &error), nullptr);
    EXPECT_NE(error.find(file), std::string::npos) << error;
}

} // namespace

// Off-CPU time (record --off-cpu): one more event, its time on the stacks
// the threads blocked in, counted as no sample.
struct QueryOffCpuTest : StorageTest {
    std::string file;
    static constexpr uint64_t kMs = 1'000'000;

    void SetUp() override {
        StorageTest::SetUp();
        file = path("off.cpcprof");
        write_off_cpu_profile(file);
    }

    std::unique_ptr<Query> open(const QueryFilter &f = {}, const QueryOptions &o = {}) {
        std::string error;
        auto q = Query::open(file, f, &error, o);
        EXPECT_TRUE(q) << error;
        return q;
    }
};

TEST_F(QueryOffCpuTest, WaitsAddToTheOffCpuEventWhereTheThreadBlockedAndCountNoSample) {
    auto q = open();
    ASSERT_TRUE(q);
    ASSERT_EQ(q->off_cpu_event(), 2);
    EXPECT_EQ(q->events()[2].name, "off-cpu");
    EXPECT_EQ(q->samples_kept(), 4u);
    EXPECT_EQ(q->total().samples, 4u);
    EXPECT_EQ(q->total().values[0], 4 * kMs);
    EXPECT_EQ(q->total().values[1], 4u);
    EXPECT_EQ(q->total().values[2], 107 * kMs + 700'000);
    // Blocked three times under main, once in a stack cut short.
    const Cost &wait_self = q->function_self()[fn(*q, "wait_input")];
    EXPECT_EQ(wait_self.values[2], 102 * kMs);
    EXPECT_EQ(wait_self.samples, 0u);
    EXPECT_EQ(wait_self.values[0], 0u);
    const Cost &main_total = q->function_total()[fn(*q, "main")];
    EXPECT_EQ(main_total.values[2], 100 * kMs);
    EXPECT_EQ(main_total.samples, 4u);
    EXPECT_EQ(main_total.values[0], 4 * kMs);
    EXPECT_EQ(q->function_self()[fn(*q, "compute")].values[2], 0u);
    // Time whose stack is not known is kept, under a frame saying why.
    EXPECT_EQ(q->function_self()[fn(*q, "[waiting for a CPU]")].values[2], 5 * kMs);
    EXPECT_EQ(q->function_self()[fn(*q, "[short waits]")].values[2], 700'000u);
    EXPECT_TRUE(q->find_functions("[no stack]").empty());
    for (const Query::ThreadCost &t : q->threads()) {
        if (t.tid == 101) {
            EXPECT_EQ(t.cost.samples, 0u);
            EXPECT_EQ(t.cost.values[2], 7 * kMs + 700'000);
        } else {
            EXPECT_EQ(t.cost.samples, 4u);
            EXPECT_EQ(t.cost.values[2], 100 * kMs);
        }
    }
}

TEST_F(QueryOffCpuTest, FiltersChooseWaitsByThreadAndByWhenTheyBegan) {
    QueryFilter window;
    window.from_ns = 30 * kMs;
    window.to_ns = 70 * kMs;
    auto q = open(window);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->total().samples, 0u);
    EXPECT_EQ(q->total().values[2], 32 * kMs + 700'000);
    QueryFilter worker;
    worker.tid = 101;
    q = open(worker);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->total().values[2], 7 * kMs + 700'000);
    // Off-CPU time is on no processor.
    QueryFilter cpu;
    cpu.cpu = 0;
    q = open(cpu);
    ASSERT_TRUE(q);
    EXPECT_EQ(q->total().values[2], 0u);
}

TEST_F(QueryOffCpuTest, KeptWaitsAreToldFromSamplesAndSubsetsCountBoth) {
    QueryOptions keep;
    keep.keep_samples = true;
    auto q = open({}, keep);
    ASSERT_TRUE(q);
    ASSERT_EQ(q->kept_samples().size(), 10u);
    size_t waits = 0;
    for (size_t i = 0; i < q->kept_samples().size(); ++i)
        waits += q->kept_off_cpu(i) ? 1 : 0;
    EXPECT_EQ(waits, 6u);
    // The main thread's samples and waits.
    auto main_thread = q->subset(
        [&](size_t i) {
            const auto &st = q->stack_thread_costs()[q->kept_samples()[i].stack_thread];
            return q->threads()[st.thread].tid == 100;
        },
        {});
    ASSERT_TRUE(main_thread);
    EXPECT_EQ(main_thread->samples_kept(), 4u);
    EXPECT_EQ(main_thread->total().samples, 4u);
    EXPECT_EQ(main_thread->total().values[2], 100 * kMs);
}

// Wall-clock time: the CPU clock's samples and the waits on one event, so
// that a thread's cost is its whole run.
TEST_F(QueryOffCpuTest, WallClockIsTheClocksSamplesPlusTheWaitsPerStack) {
    QueryOptions keep;
    keep.keep_samples = true;
    auto q = open({}, keep);
    ASSERT_TRUE(q);
    ASSERT_EQ(q->wall_clock_event(), 3);
    EXPECT_EQ(q->wall_clock_source(), 0);
    ASSERT_EQ(q->events().size(), 4u);
    EXPECT_EQ(q->events()[3].name, kWallClockEvent);
    EXPECT_EQ(events_text(*q), "cpu-clock (sampling, period 1000000), page-faults (counted), "
                               "off-cpu (time off the CPU), wall-clock (cpu-clock + off-cpu)");
    EXPECT_EQ(q->total().values[3], 4 * kMs + 107 * kMs + 700'000);
    EXPECT_EQ(q->total().samples, 4u);
    // main: 4 ms computing, 100 ms waiting under it.
    EXPECT_EQ(q->function_total()[fn(*q, "main")].values[3], 104 * kMs);
    EXPECT_EQ(q->function_self()[fn(*q, "compute")].values[3], 4 * kMs);
    EXPECT_EQ(q->function_self()[fn(*q, "wait_input")].values[3], 102 * kMs);
    for (const Query::ThreadCost &t : q->threads())
        EXPECT_EQ(t.cost.values[3], t.tid == 101 ? 7 * kMs + 700'000 : 104 * kMs) << t.tid;
    // Each kept entry carries its own: a sample its period, a wait its time.
    uint64_t sum = 0;
    for (size_t i = 0; i < q->kept_samples().size(); ++i) {
        std::span<const uint64_t> v = q->kept_values(i);
        ASSERT_EQ(v.size(), 4u);
        EXPECT_EQ(v[3], v[0] + v[2]) << i;
        sum += v[3];
    }
    EXPECT_EQ(sum, q->total().values[3]);
    auto worker = q->subset(
        [&](size_t i) {
            const auto &st = q->stack_thread_costs()[q->kept_samples()[i].stack_thread];
            return q->threads()[st.thread].tid == 101;
        },
        {});
    ASSERT_TRUE(worker);
    EXPECT_EQ(worker->wall_clock_event(), 3);
    EXPECT_EQ(worker->total().values[3], 7 * kMs + 700'000);
    EXPECT_EQ(worker->event_index("wall-clock"), 3);
}

// Without off-CPU time, or without a clock to add it to, there is none.
TEST_F(QueryOffCpuTest, NoWallClockWithoutBothTimes) {
    std::string error;
    const std::string plain = path("plain.cpcprof");
    write_profile(plain, 20);
    auto q = Query::open(plain, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_EQ(q->wall_clock_event(), -1);
    EXPECT_EQ(q->events().size(), q->reader().run().events.size());

    const std::string faults = path("faults.cpcprof");
    {
        auto w = Writer::create(faults, &error);
        ASSERT_TRUE(w) << error;
        RunInfo run = test_run();
        run.events = {{"page-faults", 100, true}, {kOffCpuEvent, 0, false}};
        w->begin_run(run);
        w->add_process({100, 1, {"./prog"}, "/opt/prog", kStartMono});
        w->add_thread({100, 100, "prog"});
        const int64_t ms = 1'000'000;
        const std::vector<uint64_t> stack = {0x401000}, values = {100, 0};
        w->add_sample({100, 100, kStartMono + ms, true, stack, values});
        w->add_off_cpu({100, 100, kStartMono + 2 * ms, 3 * ms, 1, false, true, stack});
        ASSERT_TRUE(w->finish(kStartMono + 10 * ms, &error)) << error;
    }
    q = Query::open(faults, {}, &error);
    ASSERT_TRUE(q) << error;
    EXPECT_EQ(q->off_cpu_event(), 1);
    EXPECT_EQ(q->wall_clock_event(), -1) << "page faults and time do not add up";
    EXPECT_EQ(q->events().size(), 2u);
}
