// SPDX-License-Identifier: MIT
// cpcprof report, run as a user runs it, on the known profile (every
// sample documented in tests/storage/helpers.h), on a profile with counter
// events (derived columns) and on a real recording of cpcprof-demo.
//
// The known profile: 11 samples of cpu-clock (period 1e6) and page-faults
// (17 in all): square self 6 (12 faults), recurse self 4, libx.so+0x500
// self 1 (5 faults); main on 10 stacks, compute on 6.
#include "tests/report/report_test_util.h"
#include "tests/support/binomial.h"
#include "tests/support/folded_profile.h"
#include "tests/view_common/view_harness.h"

#include "storage/reader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

namespace cpcprof::test {
namespace {

using nlohmann::json;

constexpr double kTol = 0.006; // shares are printed with two decimals

double pct(double part, double whole) {
    return 100.0 * part / whole;
}

struct ReportTest : ::testing::Test {
    TempDir dir;
    std::string known = dir.file("known.cpcprof");
    void SetUp() override { storagetest::write_known_profile(known); }

    RunResult report(std::vector<std::string> args) {
        args.insert(args.begin(), {"report", known});
        return cpcprof(dir, args);
    }
    TextTable table(std::vector<std::string> args) {
        RunResult r = report(std::move(args));
        EXPECT_EQ(r.status, 0) << r.err;
        return parse_table(r.out);
    }
};

TEST_F(ReportTest, FunctionSharesFollowFromTheSamples) {
    RunResult r = report({});
    ASSERT_EQ(r.status, 0) << r.err;
    TextTable t = parse_table(r.out);
    ASSERT_EQ(t.rows.size(), 5u) << r.out; // main, compute, square, recurse, libx
    // Sorted by self cpu-clock: square (6), recurse (4), libx (1), then the rest.
    EXPECT_EQ(t.cell(0, "function"), "square");
    EXPECT_EQ(t.cell(1, "function"), "recurse");
    EXPECT_EQ(t.cell(2, "function"), "libx.so+0x500");

    int sq = t.find("function", "square");
    EXPECT_NEAR(percent_value(t.cell(sq, "self:cpu-clock")), pct(6, 11), kTol);
    EXPECT_NEAR(percent_value(t.cell(sq, "self:page-faults")), pct(12, 17), kTol);
    EXPECT_EQ(t.cell(sq, "samples"), "6");
    EXPECT_EQ(t.cell(sq, "module"), "prog");
    EXPECT_EQ(t.cell(sq, "file:line"), "/src/m.h:3");

    int main_row = t.find("function", "main");
    ASSERT_GE(main_row, 0);
    EXPECT_NEAR(percent_value(t.cell(main_row, "self:cpu-clock")), 0.0, kTol);
    EXPECT_NEAR(percent_value(t.cell(main_row, "total:cpu-clock")), pct(10, 11), kTol);
    EXPECT_EQ(t.cell(main_row, "total-samples"), "10");
    EXPECT_NEAR(percent_value(t.cell(main_row, "total:page-faults")), pct(17, 17), kTol);

    int libx = t.find("function", "libx.so+0x500");
    EXPECT_EQ(t.cell(libx, "module"), "libx.so");
    EXPECT_NEAR(percent_value(t.cell(libx, "self:page-faults")), pct(5, 17), kTol);

    // Only two events, neither a counter pair: no derived columns.
    for (const std::string &h : t.headers)
        EXPECT_TRUE(h.find("CPI") == std::string::npos && h.find('/') == std::string::npos) << h;
}

TEST_F(ReportTest, HeaderSaysWhatTheRunWas) {
    RunResult r = report({});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 11 kept / 11 stored, 0 dropped"), std::string::npos) << r.out;
    // 10 of the 11 stacks reach main; the cut one does not.
    EXPECT_NE(r.out.find("# complete stacks: 90.9 %\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# hardware PMU: no"), std::string::npos);
    // What took the samples, and why not perf_event_open.
    EXPECT_NE(r.out.find("# counters: posix-timer, because perf_event_open refused (EPERM: a "
                         "seccomp filter?)\n"),
              std::string::npos)
        << r.out;
    // libx.so's one sample of 11 has no name: 9.1 %.
    EXPECT_NE(r.out.find("# modules without symbols: /lib/libx.so (9.1 % of samples)\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("# duration: 0.050 s"), std::string::npos); // finish at +50 ms
    // The command keeps its odd words recognisable.
    EXPECT_NE(r.out.find("'big arg with spaces' ''"), std::string::npos);
    std::string events = lines_with(r.out, "# events: ").at(0);
    EXPECT_NE(events.find("cpu-clock"), std::string::npos);
    EXPECT_NE(events.find("1000000"), std::string::npos);
    EXPECT_NE(events.find("page-faults"), std::string::npos);
}

TEST_F(ReportTest, SortKeys) {
    auto names = [&](std::vector<std::string> args) {
        TextTable t = table(std::move(args));
        std::vector<std::string> out;
        for (size_t i = 0; i < t.rows.size(); ++i)
            out.push_back(t.cell(i, "function"));
        return out;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(names({"--sort", "name"}),
              (V{"compute", "libx.so+0x500", "main", "recurse", "square"}));
    // total: main 10, then compute and square 6 (ties by self samples: square first).
    EXPECT_EQ(names({"--sort", "total"}).at(0), "main");
    EXPECT_EQ(names({"--sort", "total"}).at(1), "square");
    EXPECT_EQ(names({"--sort", "samples"}).at(1), "recurse");
    // By an event: libx's 5 faults come before recurse's none.
    V by_faults = names({"--sort", "page-faults"});
    EXPECT_EQ(by_faults.at(0), "square");
    EXPECT_EQ(by_faults.at(1), "libx.so+0x500");
    // --event weighs the default order the same way.
    EXPECT_EQ(names({"--event", "page-faults"}).at(1), "libx.so+0x500");
}

TEST_F(ReportTest, TopCutsTheTable) {
    RunResult r = report({"--top", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(parse_table(r.out).rows.size(), 2u);
    EXPECT_NE(r.out.find("2 of 5 rows"), std::string::npos) << r.out;
    EXPECT_EQ(table({"--top", "0"}).rows.size(), 5u);
    EXPECT_EQ(table({"--top", "1", "--sort", "total"}).cell(0, "function"), "main");
}

TEST_F(ReportTest, ByThreadAndThreadFilter) {
    TextTable t = table({"--by", "thread"});
    ASSERT_EQ(t.rows.size(), 2u);
    int prog = t.find("tid", "100"), worker = t.find("tid", "101");
    ASSERT_GE(prog, 0);
    ASSERT_GE(worker, 0);
    EXPECT_EQ(t.cell(prog, "thread"), "prog");
    EXPECT_EQ(t.cell(prog, "samples"), "9");
    EXPECT_NEAR(percent_value(t.cell(prog, "cpu-clock")), pct(9, 11), kTol);
    EXPECT_NEAR(percent_value(t.cell(worker, "page-faults")), pct(5, 17), kTol);

    RunResult r = report({"--tid", "101"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 2 kept / 11 stored"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# complete stacks: 50.0 %\n"), std::string::npos)
        << r.out; // of those kept
    TextTable w = parse_table(r.out);
    // Shares are of the kept samples: recurse's one of two.
    EXPECT_NEAR(percent_value(w.cell(w.find("function", "recurse"), "self:cpu-clock")), 50.0, kTol);
}

TEST_F(ReportTest, ByLineAndByModule) {
    TextTable t = table({"--by", "line", "--top", "0"});
    int sq = t.find("file:line", "/src/m.h:3");
    ASSERT_GE(sq, 0);
    EXPECT_EQ(t.cell(sq, "samples"), "6");
    int call = t.find("file:line", "/src/a.c:20"); // compute's line of the inlined call
    ASSERT_GE(call, 0);
    EXPECT_EQ(t.cell(call, "function"), "compute");
    EXPECT_EQ(t.cell(call, "samples"), "0");
    EXPECT_EQ(t.cell(call, "total-samples"), "6");
    EXPECT_EQ(t.cell(t.find("file:line", "/src/a.c:30"), "samples"), "4");
    EXPECT_EQ(t.cell(t.find("file:line", "/src/a.c:31"), "total-samples"), "4");
    EXPECT_EQ(t.cell(t.find("file:line", "/src/a.c:10"), "total-samples"), "9");

    TextTable m = table({"--by", "module"});
    ASSERT_EQ(m.rows.size(), 2u);
    int prog = m.find("module", "/opt/prog"), lib = m.find("module", "/lib/libx.so");
    EXPECT_EQ(m.cell(prog, "samples"), "10");
    EXPECT_EQ(m.cell(prog, "total-samples"), "11"); // libx's sample came from main
    EXPECT_EQ(m.cell(lib, "total-samples"), "1");
}

TEST_F(ReportTest, TimeFilterAndEmptySelection) {
    // [15 ms, 25 ms): one square sample (15 ms) and the three recursions.
    RunResult r = report({"--time", "0.015,0.025"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 4 kept / 11 stored"), std::string::npos) << r.out;
    TextTable t = parse_table(r.out);
    EXPECT_NEAR(percent_value(t.cell(t.find("function", "square"), "self:cpu-clock")), 25.0, kTol);
    EXPECT_NEAR(percent_value(t.cell(t.find("function", "recurse"), "self:cpu-clock")), 75.0, kTol);

    RunResult none = report({"--time", "1,2"});
    EXPECT_EQ(none.status, 0) << none.err;
    EXPECT_NE(none.err.find("no sample"), std::string::npos) << none.err;
    EXPECT_NE(none.out.find("# samples: 0 kept / 11 stored"), std::string::npos) << none.out;
    EXPECT_TRUE(parse_table(none.out).rows.empty());
}

// --through keeps the samples with the function on their stack (every
// one named), --not-through leaves them out; the header says so.  The
// known profile: 6 samples in compute (square inlined in it) under main,
// 3 in recurse under main and 1 whose stack was cut, 1 in libx.
TEST_F(ReportTest, ThroughAndNotThroughAFunction) {
    RunResult r = report({"--through", "recurse"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 4 kept / 11 stored"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# filter: through recurse"), std::string::npos) << r.out;
    TextTable t = parse_table(r.out);
    EXPECT_NEAR(percent_value(t.cell(t.find("function", "recurse"), "self:cpu-clock")), 100.0,
                kTol);
    EXPECT_EQ(t.find("function", "square"), -1);

    // An inlined call is a frame of its own.
    r = report({"--through", "square"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 6 kept / 11 stored"), std::string::npos) << r.out;

    r = report({"--not-through", "compute"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 5 kept / 11 stored"), std::string::npos) << r.out;
    t = parse_table(r.out);
    EXPECT_EQ(t.find("function", "square"), -1);
    EXPECT_EQ(t.cell(t.find("function", "recurse"), "samples"), "4");

    // Both, and with the time filter: every test holds.
    r = report({"--through", "main", "--not-through", "recurse"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 7 kept / 11 stored"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# filter: through main, not through recurse"), std::string::npos)
        << r.out;
    r = report({"--through", "main", "--through", "recurse", "--time", "0.015,0.025"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 3 kept / 11 stored"), std::string::npos) << r.out;

    r = report({"--format", "json", "--through", "recurse"});
    ASSERT_EQ(r.status, 0) << r.err;
    json j = json::parse(r.out);
    EXPECT_EQ(j.at("run").at("filter").at("through"), json::array({"recurse"})) << r.out;

    r = report({"--through", "nosuchfunction"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("no sample"), std::string::npos) << r.err;
    r = report({"--through", ""});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--through"), std::string::npos) << r.err;
}

TEST_F(ReportTest, NoInlineFoldsSquareIntoCompute) {
    TextTable t = table({"--no-inline"});
    EXPECT_EQ(t.find("function", "square"), -1);
    int c = t.find("function", "compute");
    ASSERT_GE(c, 0);
    EXPECT_EQ(t.cell(c, "samples"), "6");
    EXPECT_EQ(t.cell(c, "file:line"), "/src/a.c:20");
}

TEST_F(ReportTest, CallersAndCalleesTrees) {
    RunResult r = report({"--callers", "recurse"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<TreeLine> tree = parse_tree(r.out);
    // recurse <- recurse <- recurse <- main: the truncated stack stops a level early.
    ASSERT_EQ(tree.size(), 4u) << r.out;
    const char *names[] = {"recurse", "recurse", "recurse", "main"};
    const char *samples[] = {"4", "4", "3", "3"};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(tree[i].function, names[i]) << i;
        EXPECT_EQ(tree[i].depth, i) << i;
        EXPECT_EQ(tree[i].samples, samples[i]) << i;
    }
    EXPECT_NEAR(percent_value(tree[0].share), pct(4, 11), kTol);

    r = report({"--callees", "main"});
    ASSERT_EQ(r.status, 0) << r.err;
    tree = parse_tree(r.out);
    ASSERT_GE(tree.size(), 6u) << r.out;
    EXPECT_EQ(tree[0].function, "main");
    EXPECT_EQ(tree[0].samples, "10");
    // Largest child first: compute (6) with square inlined in it.
    EXPECT_EQ(tree[1].function, "compute");
    EXPECT_EQ(tree[1].depth, 1);
    EXPECT_EQ(tree[2].function, "square [inlined]");
    EXPECT_EQ(tree[2].depth, 2);
    EXPECT_EQ(tree[3].function, "recurse");
    EXPECT_EQ(tree[3].samples, "3");
    EXPECT_EQ(tree.back().function, "libx.so+0x500");
    EXPECT_EQ(tree.back().depth, 1);

    r = report({"--callers", "nosuchfunction"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("nosuchfunction"), std::string::npos) << r.err;
}

TEST_F(ReportTest, JsonParsesBack) {
    RunResult r = report({"--format", "json", "--top", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    const json &run = doc.at("run");
    EXPECT_EQ(run.at("samples").at("kept"), 11);
    EXPECT_EQ(run.at("samples").at("complete_stacks"), 10); // all but the cut one
    EXPECT_EQ(run.at("hw_pmu"), false);
    EXPECT_EQ(run.at("counters"), "posix-timer");
    EXPECT_EQ(run.at("counters_reason"), "perf_event_open refused (EPERM: a seccomp filter?)");
    EXPECT_EQ(run.at("modules_without_symbols"), json::array({"/lib/libx.so"}));
    EXPECT_EQ(run.at("modules_without_symbols_samples"), json::array({1}));
    const json &events = doc.at("events");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].at("name"), "page-faults");
    EXPECT_EQ(events[1].at("total"), 17);
    const json &rows = doc.at("rows");
    ASSERT_EQ(rows.size(), 5u);
    const json &sq = rows[0];
    EXPECT_EQ(sq.at("function"), "square");
    EXPECT_EQ(sq.at("file"), "/src/m.h");
    EXPECT_EQ(sq.at("line"), 3);
    EXPECT_EQ(sq.at("self").at("samples"), 6);
    EXPECT_EQ(sq.at("self").at("values").at(1), 12);
    EXPECT_NEAR(sq.at("self").at("shares").at(0).get<double>(), 6.0 / 11, 1e-6);
    EXPECT_NEAR(sq.at("self").at("shares").at(1).get<double>(), 12.0 / 17, 1e-6);

    // A tree as JSON: nested children.
    r = report({"--callers", "recurse", "--format", "json"});
    doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    const json *root = &doc.at("roots").at(0);
    int depth = 0;
    while (!root->at("children").empty()) {
        root = &root->at("children").at(0);
        ++depth;
    }
    EXPECT_EQ(depth, 3);
    EXPECT_EQ(root->at("function"), "main");
    EXPECT_EQ(root->at("total").at("samples"), 3);
}

TEST_F(ReportTest, CsvRows) {
    RunResult r = report({"--format", "csv", "--top", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    auto rows = parse_csv(r.out);
    ASSERT_EQ(rows.size(), 6u) << r.out; // header + 5 functions
    for (const auto &row : rows)
        EXPECT_EQ(row.size(), rows[0].size());
    EXPECT_EQ(rows[1][0], "square");
    EXPECT_EQ(parse_csv(report({"--format", "csv", "--top", "3"}).out).size(), 4u);
    EXPECT_EQ(parse_csv(report({"--format", "csv", "--by", "thread"}).out).size(), 3u);
}

TEST_F(ReportTest, OutputFileIsWrittenWholeOrNotAtAll) {
    std::string out = dir.file("r.json");
    RunResult r = report({"--format", "json", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
    EXPECT_TRUE(json::accept(read_file(out))) << read_file(out);
    r = report({"-o", dir.file("no/such/dir/r.txt")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no/such/dir/r.txt"), std::string::npos) << r.err;
    size_t files = 0;
    for ([[maybe_unused]] auto &e : std::filesystem::directory_iterator(dir.path()))
        ++files;
    EXPECT_EQ(files, 4u); // known.cpcprof, r.json, and run_cpcprof's stdout/stderr files
}

TEST_F(ReportTest, BadInput) {
    struct Case {
        std::vector<std::string> args;
        int status;
        const char *says;
    };
    std::string text = dir.file("notes.txt");
    write_file(text, "not a profile\n");
    const Case cases[] = {
        {{"report", dir.file("missing.cpcprof")}, 1, "missing.cpcprof"},
        {{"report", text}, 1, "notes.txt"},
        {{"report", known, "--event", "bogus"}, 2, "bogus"},
        {{"report", known, "--sort", "bogus"}, 2, "bogus"},
        {{"report", known, "--by", "bogus"}, 2, "bogus"},
        {{"report", known, "--format", "xml"}, 2, "xml"},
        {{"report", known, "--top", "-3"}, 2, "-3"},
        {{"report", known, "--time", "2,1"}, 2, "2,1"},
        {{"report", known, "--cpu", "-1"}, 2, "--cpu '-1': not a processor number"},
        {{"report", known, "--frobnicate"}, 2, "--frobnicate"},
        {{"report", known, "--callers", "main", "--callees", "main"}, 2, "one tree"},
        {{"report", known, known}, 2, "one profile"},
    };
    for (const Case &c : cases) {
        RunResult r = cpcprof(dir, c.args);
        EXPECT_EQ(r.status, c.status) << c.args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    RunResult help = cpcprof(dir, {"report", "--help"});
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("--callers"), std::string::npos);
}

// --cpu keeps the samples taken on one processor; the header says so,
// and a sample that does not say its processor is on none.
TEST(ReportCpu, KeepsTheSamplesTakenOnOneProcessor) {
    TempDir dir;
    std::string file = make_folded_profile(
        dir.path(), {"cpu0/main;a 7", "cpu1/main;b 3", "cpu1/101:worker;b 2", "main;c 4"});
    RunResult r = cpcprof(dir, {"report", file, "--cpu", "1"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 5 kept / 16 stored"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# filter: cpu 1\n"), std::string::npos) << r.out;
    TextTable t = parse_table(r.out);
    EXPECT_EQ(t.cell(t.find("function", "b"), "samples"), "5");
    EXPECT_EQ(t.find("function", "a"), -1) << r.out;
    r = cpcprof(dir, {"report", file, "--cpu", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# samples: 0 kept / 16 stored"), std::string::npos) << r.out;
}

TEST(ReportDerived, RatiosOfCounterEvents) {
    TempDir dir;
    std::string file = dir.file("counters.cpcprof");
    write_counter_profile(file);
    RunResult r = cpcprof(dir, {"report", file});
    ASSERT_EQ(r.status, 0) << r.err;
    TextTable t = parse_table(r.out);
    int hot = t.find("function", "hot_loop"), templ = t.find("function", "templ<int, \"x\">");
    ASSERT_GE(hot, 0) << r.out;
    ASSERT_GE(templ, 0) << r.out;
    // cycles 4000 over instructions 2000; 40 misses per 2000 instructions;
    // 40 misses of 400 references.  Each with the 4 samples behind it.
    EXPECT_EQ(t.cell(hot, "CPI"), "2.000 (n=4)");
    EXPECT_EQ(t.cell(hot, "cache-misses/1k-instructions"), "20.00 (n=4)");
    EXPECT_EQ(t.cell(hot, "cache-misses/cache-references"), "10.00% (n=4)");
    EXPECT_EQ(t.cell(templ, "CPI"), "0.500 (n=1)");
    EXPECT_NE(r.out.find("# hardware PMU: yes"), std::string::npos);

    r = cpcprof(dir, {"report", file, "--format", "json"});
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    ASSERT_EQ(doc.at("derived").size(), 3u);
    const json &row = doc.at("rows").at(0);
    ASSERT_EQ(row.at("function"), "hot_loop");
    const json &cpi = row.at("derived").at(0);
    EXPECT_EQ(cpi.at("name"), "CPI");
    EXPECT_DOUBLE_EQ(cpi.at("value").get<double>(), 2.0);
    EXPECT_EQ(cpi.at("samples"), 4);

    // CSV: the template's name holds a comma and quotes, so it is quoted.
    r = cpcprof(dir, {"report", file, "--format", "csv"});
    EXPECT_NE(r.out.find("\"templ<int, \"\"x\"\">\""), std::string::npos) << r.out;
    auto rows = parse_csv(r.out);
    ASSERT_EQ(rows.size(), 4u); // header, hot_loop, templ, main (self 0)
    EXPECT_EQ(rows[2][0], "templ<int, \"x\">");
    EXPECT_EQ(rows[2].size(), rows[0].size());
}

// The demo's three loops are its hottest functions, each with the share of
// the samples that its own CPU time gives: the demo times matrix_multiply
// and walk_list itself (their split depends on the machine: walk_list's
// cache misses cost more on a busy one), and its worker runs checksum for
// a third of the main loop's 1 s.  A loop is in the top three whenever it
// has more samples than all functions outside the loops together.
TEST(ReportDemo, HottestFunctionsAreTheDemosLoops) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_FALSE(file.empty());
    std::string error;
    auto reader = storage::Reader::open(file, &error);
    ASSERT_TRUE(reader) << error;
    if (!reader->symbolized())
        GTEST_SKIP() << "the demo recording was not symbolized (record did not run the "
                        "symbolizer), so functions have no names to check";
    std::smatch m;
    static const std::regex timings_re(
        R"(matrix_multiply ([0-9.]+) s, walk_list ([0-9.]+) s of CPU time)");
    const std::string &printed = demo_output();
    ASSERT_TRUE(std::regex_search(printed, m, timings_re)) << printed;
    const std::vector<std::string> loops{"checksum", "matrix_multiply", "walk_list"};
    const std::vector<double> cpu{1.0 / 3, std::stod(m[1]), std::stod(m[2])};
    const double loops_cpu = cpu[0] + cpu[1] + cpu[2];

    TempDir dir;
    RunResult r = cpcprof(dir, {"report", file, "--format", "csv"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::vector<std::string>> rows = parse_csv(r.out);
    ASSERT_GE(rows.size(), 4u) << r.out;
    auto column = std::find(rows[0].begin(), rows[0].end(), "self_samples");
    ASSERT_NE(column, rows[0].end()) << r.out;
    size_t samples_col = size_t(column - rows[0].begin());
    double all = 0;
    std::vector<double> in_loop(3, 0);
    for (size_t i = 1; i < rows.size(); ++i) {
        ASSERT_GT(rows[i].size(), samples_col) << r.out;
        double n = std::stod(rows[i][samples_col]);
        all += n;
        for (size_t k = 0; k < 3; ++k)
            if (rows[i][0] == loops[k])
                in_loop[k] += n;
    }
    double loops_samples = in_loop[0] + in_loop[1] + in_loop[2];
    ASSERT_GT(all, 0) << r.out;
    double rest = (all - loops_samples) / all;
    for (size_t k = 0; k < 3; ++k)
        std::printf("%s: %.2f s of CPU (%.1f %% of the loops'), %.0f samples (%.1f %%)\n",
                    loops[k].c_str(), cpu[k], 100 * cpu[k] / loops_cpu, in_loop[k],
                    100 * in_loop[k] / std::max(loops_samples, 1.0));
    std::printf("outside the loops: %.1f %% of %.0f samples\n", 100 * rest, all);
    EXPECT_LE(rest, 0.10) << r.out;
    // Each loop's count among the loops' samples: binomial, at its share
    // of their CPU time.
    for (size_t k = 0; k < 3; ++k) {
        auto n = uint64_t(loops_samples), got = uint64_t(in_loop[k]);
        double share = cpu[k] / loops_cpu;
        EXPECT_GE(got, binomial_lower_bound(n, share))
            << loops[k] << ": " << binomial_story(got, n, share) << "\n"
            << printed << r.out;
        EXPECT_LE(got, binomial_upper_bound(n, share))
            << loops[k] << ": " << binomial_story(got, n, share) << "\n"
            << printed << r.out;
    }

    r = cpcprof(dir, {"report", file, "--top", "3"});
    ASSERT_EQ(r.status, 0) << r.err;
    TextTable t = parse_table(r.out);
    ASSERT_EQ(t.rows.size(), 3u) << r.out;
    std::vector<std::string> top;
    for (size_t i = 0; i < 3; ++i)
        top.push_back(t.cell(i, "function"));
    for (size_t k = 0; k < 3; ++k) {
        if (in_loop[k] / all > rest) {
            EXPECT_NE(std::find(top.begin(), top.end(), loops[k]), top.end())
                << loops[k] << " has more samples than everything outside the loops\n"
                << r.out;
        }
    }

    // checksum runs on the second thread, the other two on the main one.
    r = cpcprof(dir, {"report", file, "--by", "thread"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_GE(parse_table(r.out).rows.size(), 2u) << r.out;
    r = cpcprof(dir, {"report", file, "--callers", "checksum"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<TreeLine> tree = parse_tree(r.out);
    ASSERT_GE(tree.size(), 2u) << r.out;
    EXPECT_EQ(tree[0].function, "checksum");
    EXPECT_EQ(tree[1].function, "worker") << r.out;
}

} // namespace
} // namespace cpcprof::test
