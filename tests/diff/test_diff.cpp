// SPDX-License-Identifier: MIT
// cpcprof diff run as a user runs it.  BASE is the known profile
// (tests/storage/helpers.h: every sample documented); NEW is written here
// with the same functions under another install path, some of them
// heavier, one gone and two new, and a longer run.  Every expected number
// follows from those samples.  Also: the CI gate's exit statuses, the
// differential flame graph, JSON structure, and files that cannot be
// compared.
#include "tests/view_common/view_harness.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

namespace cpcprof::test {
namespace {

using namespace storagetest;
using nlohmann::json;

constexpr uint64_t kProg = 0x400000;
constexpr uint64_t kLib = 0x7f0000000000;
const char kTemplate[] = "tpl<a&b> \"q\""; // a name that needs escaping in HTML and JSON

// The known profile (BASE), per cpu-clock sample (1e6 each, 11 samples,
// run of 50 ms): square self 6, recurse self 4 (3 + the truncated one),
// libx.so+0x500 self 1; main on 10 stacks.  Page faults: 6 x 2 on square,
// 5 on libx.so: 17.
constexpr double kBaseSamples = 11;
constexpr double kBaseSeconds = 0.05;

// NEW, written by write_new(): 20 samples, run of 200 ms, the program at
// another path: 10 x main > compute > square (1 fault each), 8 x main >
// recurse^3, 1 x main > helper, 1 x main > tpl<a&b> "q"; no libx.so.
constexpr double kNewSamples = 20;
constexpr double kNewSeconds = 0.2;

struct Stack {
    std::vector<uint64_t> frames; // leaf first
    int count = 1;
    uint64_t faults = 0;
};

struct Variant {
    std::vector<EventInfo> events = {{"cpu-clock", 1'000'000, true}, {"page-faults", 0, false}};
    std::string prog = "/home/ci/build/prog"; // the known profile's is /opt/prog
    std::vector<Stack> stacks;
    int64_t end_ms = 200;
    // Off-CPU time (record --off-cpu), when any: a wait of ms on stack.
    struct Wait {
        std::vector<uint64_t> frames;
        int64_t ms = 0;
    };
    std::vector<Wait> waits;
};

const std::vector<uint64_t> kSquare = {kProg + 0x2004, kProg + 0x1010};
const std::vector<uint64_t> kRecurse = {kProg + 0x3004, kProg + 0x3010, kProg + 0x3010,
                                        kProg + 0x1010};
const std::vector<uint64_t> kHelper = {kProg + 0x4004, kProg + 0x1018};
const std::vector<uint64_t> kTpl = {kProg + 0x5004, kProg + 0x1018};

// Modelled on write_known_profile: the same symbols at the same offsets,
// plus helper and tpl.
void write_variant(const std::string &file, const Variant &v) {
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run = test_run();
    run.events = v.events;
    if (!v.waits.empty())
        run.events.push_back({kOffCpuEvent, 0, false});
    w->begin_run(run);
    w->add_process({100, 1, {"./prog"}, v.prog, kStartMono});
    w->add_thread({100, 100, "prog"});
    w->add_module({100, v.prog, "", kProg, kProg + 0x10000, 0, kStartMono});
    w->add_module({100, "/lib/libx.so", "", kLib, kLib + 0x10000, 0, kStartMono});
    int64_t ms = 1;
    uint64_t n = 0;
    for (const Stack &s : v.stacks)
        for (int i = 0; i < s.count; ++i, ++n) {
            std::vector<uint64_t> values(run.events.size(), 0);
            values[0] = v.events[0].period;
            if (values.size() > 1)
                values[1] = s.faults;
            w->add_sample({100, 100, kStartMono + ms++ * 1'000'000, true, s.frames, values});
        }
    for (const Variant::Wait &wait : v.waits)
        w->add_off_cpu({100, 100, kStartMono + ms++ * 1'000'000, uint64_t(wait.ms) * 1'000'000, 1,
                        false, true, wait.frames});
    w->add_accounting(100, {n, n, 0});
    ASSERT_TRUE(w->finish(kStartMono + v.end_ms * 1'000'000, &error)) << error;

    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/a.c", 10, false}}},
        {0x1014, {{"main", "/src/a.c", 11, false}}},
        {0x1018, {{"main", "/src/a.c", 12, false}}},
        {0x2004, {{"square", "/src/m.h", 3, true}, {"compute", "/src/a.c", 20, false}}},
        {0x3004, {{"recurse", "/src/a.c", 30, false}}},
        {0x3010, {{"recurse", "/src/a.c", 31, false}}},
        {0x4004, {{"helper", "/src/a.c", 40, false}}},
        {0x5004, {{kTemplate, "/src/a.c", 50, false}}},
    };
    for (const AddressToResolve &a : s->addresses()) {
        if (a.path == v.prog)
            s->add(a.module_id, a.offset, answers.at(a.offset));
        s->set_module_symbols(a.module_id, a.path == v.prog);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

Variant new_variant() {
    Variant v;
    v.stacks = {{kSquare, 10, 1}, {kRecurse, 8, 0}, {kHelper, 1, 0}, {kTpl, 1, 0}};
    return v;
}

struct DiffTest : ::testing::Test {
    TempDir dir;
    std::string base = dir.file("base.cpcprof"), now = dir.file("new.cpcprof");

    void SetUp() override {
        write_known_profile(base);
        write_variant(now, new_variant());
    }
    RunResult diff(std::vector<std::string> args) {
        args.insert(args.begin(), "diff");
        return cpcprof(dir, args);
    }
    json diff_json(std::vector<std::string> args, int expected_status = 0) {
        args.insert(args.end(), {"--format", "json", "--top", "0"});
        RunResult r = diff(args);
        EXPECT_EQ(r.status, expected_status) << r.err;
        json doc = json::parse(r.out, nullptr, false);
        EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << r.out;
        return doc;
    }
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto &e : std::filesystem::directory_iterator(dir.path()))
            out.push_back(e.path().filename().string());
        return out;
    }
};

const json &function(const json &doc, const std::string &name) {
    static const json kNone;
    for (const json &f : doc["functions"])
        if (f["function"] == name)
            return f;
    ADD_FAILURE() << "no function " << name << " in the diff";
    return kNone;
}

std::string pct(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", fraction * 100);
    return buf;
}

std::string pp(double points) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.2f", points);
    return buf;
}

std::vector<std::string> words_of_line(const std::string &text, const std::string &word) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream in(line);
        std::vector<std::string> words;
        for (std::string w; in >> w;)
            words.push_back(w);
        for (const auto &w : words)
            if (w == word)
                return words;
    }
    return {};
}

TEST_F(DiffTest, SharesAndPointsOfMatchedFunctions) {
    json doc = diff_json({base, now});
    EXPECT_EQ(doc["events"], json({"cpu-clock", "page-faults"}));
    EXPECT_EQ(doc["event"], "cpu-clock");
    EXPECT_EQ(doc["base"]["samples"], 11);
    EXPECT_EQ(doc["new"]["samples"], 20);

    // recurse: /opt/prog in BASE, /home/ci/build/prog in NEW; one function.
    const json &rec = function(doc, "recurse");
    EXPECT_EQ(rec["module"], "prog");
    EXPECT_EQ(rec["status"], "both");
    EXPECT_NEAR(rec["base"]["self_share"][0].get<double>(), 4 / kBaseSamples, 1e-9);
    EXPECT_NEAR(rec["new"]["self_share"][0].get<double>(), 8 / kNewSamples, 1e-9);
    EXPECT_NEAR(rec["self_points"][0].get<double>(), (8 / kNewSamples - 4 / kBaseSamples) * 100,
                1e-6);

    const json &sq = function(doc, "square");
    EXPECT_NEAR(sq["self_points"][0].get<double>(), (10 / kNewSamples - 6 / kBaseSamples) * 100,
                1e-6);
    EXPECT_LT(sq["self_points"][0].get<double>(), 0);
    // Page faults: BASE 12 of 17 on square, NEW 10 of 10.
    EXPECT_NEAR(sq["self_points"][1].get<double>(), (1 - 12.0 / 17) * 100, 1e-6);

    // main is on every NEW stack, on 10 of 11 BASE stacks; never innermost.
    const json &m = function(doc, "main");
    EXPECT_NEAR(m["total_points"][0].get<double>(), (1 - 10 / kBaseSamples) * 100, 1e-6);
    EXPECT_EQ(m["self_points"][0].get<double>(), 0);
}

TEST_F(DiffTest, NewAndGoneFunctions) {
    json doc = diff_json({base, now});
    const json &helper = function(doc, "helper");
    EXPECT_EQ(helper["status"], "new");
    EXPECT_FALSE(helper["base"]["present"].get<bool>());
    EXPECT_NEAR(helper["self_points"][0].get<double>(), 100 / kNewSamples, 1e-6);
    const json &lib = function(doc, "libx.so+0x500");
    EXPECT_EQ(lib["status"], "gone");
    EXPECT_EQ(lib["module"], "libx.so");
    EXPECT_FALSE(lib["new"]["present"].get<bool>());
    EXPECT_NEAR(lib["self_points"][0].get<double>(), -100 / kBaseSamples, 1e-6);
    EXPECT_EQ(function(doc, kTemplate)["status"], "new");
    // 6 functions: main, compute, square, recurse, libx.so+0x500 + helper, tpl.
    EXPECT_EQ(doc["function_count"], 7);
    EXPECT_EQ(doc["functions"].size(), 7u);
}

TEST_F(DiffTest, JsonRowsLargestChangeFirstWithRates) {
    json doc = diff_json({base, now});
    ASSERT_TRUE(doc["functions"].is_array());
    double last = 1e9;
    for (const json &f : doc["functions"]) {
        for (const char *key :
             {"function", "module", "status", "base", "new", "self_points", "total_points"})
            EXPECT_TRUE(f.contains(key)) << key;
        double magnitude = std::fabs(f["self_points"][0].get<double>());
        EXPECT_LE(magnitude, last + 1e-9) << f["function"];
        last = magnitude;
    }
    EXPECT_EQ(doc["functions"][0]["function"], "libx.so+0x500"); // -9.09: the largest change

    // Runs of 50 and 200 ms: rates per second differ, shares compare.
    EXPECT_NEAR(doc["base"]["seconds"].get<double>(), kBaseSeconds, 1e-9);
    EXPECT_NEAR(doc["new"]["seconds"].get<double>(), kNewSeconds, 1e-9);
    const json &sq = function(doc, "square");
    EXPECT_NEAR(sq["base"]["self_per_second"][0].get<double>(), 6e6 / kBaseSeconds, 1);
    EXPECT_NEAR(sq["new"]["self_per_second"][0].get<double>(), 10e6 / kNewSeconds, 1);
    EXPECT_TRUE(doc["fail_above"].is_null());
    EXPECT_EQ(doc["regressions"], json::array());
}

TEST_F(DiffTest, TextTableRows) {
    RunResult r = diff({base, now});
    ASSERT_EQ(r.status, 0) << r.err;
    double b = 4 / kBaseSamples, n = 8 / kNewSamples;
    // Shares, change, its interval (two words) and verdict, for self and
    // total; 11 and 20 samples tell nothing from noise.
    std::vector<std::string> recurse = words_of_line(r.out, "recurse");
    ASSERT_EQ(recurse.size(), 14u) << r.out;
    for (size_t at : {0u, 6u}) {
        EXPECT_EQ(recurse[at], pct(b));
        EXPECT_EQ(recurse[at + 1], pct(n));
        EXPECT_EQ(recurse[at + 2], pp((n - b) * 100));
        EXPECT_EQ(recurse[at + 3].front(), '[');
        EXPECT_EQ(recurse[at + 5], "noise");
    }
    EXPECT_EQ(recurse[12], "recurse");
    EXPECT_EQ(recurse[13], "prog");
    std::vector<std::string> helper = words_of_line(r.out, "helper");
    ASSERT_EQ(helper.size(), 15u) << r.out;
    EXPECT_EQ(helper[12], "new");
    EXPECT_EQ(words_of_line(r.out, "libx.so+0x500")[12], "gone");
    EXPECT_NE(r.out.find("two-proportion z-test"), std::string::npos) << r.out;

    r = diff({base, now, "--top", "2"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(words_of_line(r.out, "libx.so+0x500").empty()); // the largest change
    EXPECT_TRUE(words_of_line(r.out, "main").empty());
}

TEST_F(DiffTest, SameSharesInALongerRunAreNoChange) {
    // The known profile's complete stacks in a 50 ms run, then each 3 times
    // in a 200 ms run: every share is the same, so nothing changed.
    Variant v;
    v.prog = "/opt/prog";
    v.end_ms = 50;
    v.stacks = {{kSquare, 6, 2}, {kRecurse, 3, 0}, {{kLib + 0x500, kProg + 0x1014}, 1, 5}};
    std::string shorter = dir.file("shorter.cpcprof"), longer = dir.file("longer.cpcprof");
    write_variant(shorter, v);
    v.end_ms = 200;
    for (Stack &s : v.stacks)
        s.count *= 3;
    write_variant(longer, v);
    json doc = diff_json({shorter, longer, "--fail-above", "0"});
    EXPECT_EQ(doc["base"]["samples"], 10);
    EXPECT_EQ(doc["new"]["samples"], 30);
    EXPECT_EQ(doc["function_count"], 5);
    for (const json &f : doc["functions"])
        for (size_t e = 0; e < 2; ++e) {
            EXPECT_NEAR(f["self_points"][e].get<double>(), 0, 1e-9) << f["function"];
            EXPECT_NEAR(f["total_points"][e].get<double>(), 0, 1e-9) << f["function"];
        }
    // Per-second rates follow each run's own length.
    const json &sq = function(doc, "square");
    EXPECT_NEAR(sq["base"]["self_per_second"][0].get<double>(), 6e6 / 0.05, 1);
    EXPECT_NEAR(sq["new"]["self_per_second"][0].get<double>(), 18e6 / 0.2, 1);
}

// The known profile's shape (square, recurse, libx.so) and NEW's, each
// stack `scale` times: enough samples for the gate to tell the changes
// from noise.
Variant known_variant(int scale) {
    Variant v;
    v.prog = "/opt/prog";
    v.stacks = {{kSquare, 6 * scale, 2},
                {kRecurse, 4 * scale, 0},
                {{kLib + 0x500, kProg + 0x1014}, scale, 5}};
    v.end_ms = 50 * scale;
    return v;
}

Variant new_variant(int scale) {
    Variant v = new_variant();
    for (Stack &s : v.stacks)
        s.count *= scale;
    v.end_ms *= scale;
    return v;
}

// With 11 and 20 samples nothing is more than noise: the gate stays
// shut however large the change.
TEST_F(DiffTest, FailAboveIgnoresNoise) {
    RunResult r = diff({base, now, "--fail-above", "3"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("0 functions' self share grew by more, beyond noise"), std::string::npos)
        << r.out;
}

// 11,000 and 20,000 samples: recurse 36.36 % -> 40 % (+3.64, z = 6.3),
// helper and tpl 0 -> 5 % (new), square and libx.so shrank.
TEST_F(DiffTest, FailAboveIsTheGate) {
    std::string big_base = dir.file("big-base.cpcprof"), big_new = dir.file("big-new.cpcprof");
    write_variant(big_base, known_variant(1000));
    write_variant(big_new, new_variant(1000));
    double recurse = (0.4 - 4 / 11.0) * 100;
    RunResult r = diff({big_base, big_new, "--fail-above", "3"});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_FALSE(words_of_line(r.out, "recurse").empty()) << "the table is still printed";
    // What grew, largest first: helper and tpl (+5 each, new), then recurse.
    size_t h = r.err.find("helper"), t = r.err.find("tpl<a&b>"), c = r.err.find("recurse");
    ASSERT_NE(h, std::string::npos) << r.err;
    ASSERT_NE(t, std::string::npos) << r.err;
    ASSERT_NE(c, std::string::npos) << r.err;
    EXPECT_LT(h, c);
    EXPECT_LT(t, c);
    EXPECT_NE(r.err.find(pp(recurse)), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("square"), std::string::npos) << "square shrank:\n" << r.err;
    EXPECT_EQ(words_of_line(r.out, "recurse")[5], "REGRESSION") << r.out;
    EXPECT_EQ(words_of_line(r.out, "square")[5], "shrank") << r.out;

    r = diff({big_base, big_new, "--fail-above", "4"});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.err.find("recurse"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("helper"), std::string::npos) << r.err;
    EXPECT_EQ(words_of_line(r.out, "recurse")[5], "grew") << r.out;

    r = diff({big_base, big_new, "--fail-above", "5.5"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err.find("regression"), std::string::npos) << r.err;

    json doc = diff_json({big_base, big_new, "--fail-above", "4"}, 3);
    EXPECT_EQ(doc["fail_above"], 4);
    EXPECT_EQ(doc["test"], "two-proportion z-test on one run a side");
    EXPECT_EQ(doc["confidence"], 0.99);
    ASSERT_EQ(doc["regressions"].size(), 2u);
    EXPECT_EQ(doc["regressions"][0]["function"], "helper");
    EXPECT_NEAR(doc["regressions"][0]["self_points"].get<double>(), 5, 1e-6);
    // helper: 1,000 of 20,000 against none: +5 +- 2.576 sqrt(0.05 0.95 / 20,000).
    double half = 2.576 * std::sqrt(0.05 * 0.95 / 20000) * 100;
    EXPECT_NEAR(doc["regressions"][0]["low"].get<double>(), 5 - half, 1e-3);
    EXPECT_NEAR(doc["regressions"][0]["high"].get<double>(), 5 + half, 1e-3);
    const json &rc = function(doc, "recurse")["self_change"][0];
    EXPECT_EQ(rc["verdict"], "grew");
    EXPECT_LT(rc["p_value"].get<double>(), 0.01);
    EXPECT_LT(rc["low"].get<double>(), recurse);
    EXPECT_GT(rc["high"].get<double>(), recurse);
}

// Off-CPU time is gated like any event, and judged by the time it covers
// (as many observations as a 1 ms clock would take in it), not by the
// run's few CPU samples: helper's waits 1,000 of 2,000 ms -> 1,500 of
// 2,500 ms (+10 points, 99 % interval +- 3.8) gate; 1,000 -> 1,020 ms
// (+0.5) is noise.  Judged by the 20 CPU samples a side, neither would.
TEST_F(DiffTest, OffCpuTimeIsGatedByTheTimeItCovers) {
    auto waiting = [](int64_t helper_ms) {
        Variant v = new_variant();
        v.end_ms = 3000;
        v.waits = {{kHelper, helper_ms}, {kTpl, 500}, {kTpl, 500}};
        return v;
    };
    std::string base_waits = dir.file("waits-base.cpcprof");
    std::string more_waits = dir.file("waits-more.cpcprof");
    std::string same_waits = dir.file("waits-same.cpcprof");
    write_variant(base_waits, waiting(1000));
    write_variant(more_waits, waiting(1500));
    write_variant(same_waits, waiting(1020));
    RunResult r = diff({base_waits, more_waits, "--event", "off-cpu", "--fail-above", "5"});
    EXPECT_EQ(r.status, 3) << r.err << r.out;
    EXPECT_NE(r.err.find("helper"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("off-cpu"), std::string::npos) << r.err;
    json doc = diff_json({base_waits, more_waits, "--event", "off-cpu", "--fail-above", "5"}, 3);
    ASSERT_EQ(doc["regressions"].size(), 1u) << doc.dump();
    const json &g = doc["regressions"][0];
    EXPECT_EQ(g["function"], "helper");
    EXPECT_NEAR(g["self_points"].get<double>(), 10, 1e-6);
    const double half = 2.576 * std::sqrt(0.5 * 0.5 / 2000 + 0.6 * 0.4 / 2500) * 100;
    EXPECT_NEAR(g["low"].get<double>(), 10 - half, 1e-3);
    EXPECT_NEAR(g["high"].get<double>(), 10 + half, 1e-3);
    r = diff({base_waits, same_waits, "--event", "off-cpu", "--fail-above", "0"});
    EXPECT_EQ(r.status, 0) << r.err << r.out;
    // Wall-clock time, the CPU's and the waits' (20 ms + 2,000 -> 2,520 ms
    // of the program): helper 1,001 -> 1,501 of them.
    r = diff({base_waits, more_waits, "--event", "wall-clock", "--fail-above", "5"});
    EXPECT_EQ(r.status, 3) << r.err << r.out;
    EXPECT_NE(r.err.find("helper"), std::string::npos) << r.err;
}

TEST_F(DiffTest, EventChoosesWhatTheGateWatches) {
    // Page faults: square's self share went from 12/17 to 10/10 (+29.41).
    std::string big_base = dir.file("big-base.cpcprof"), big_new = dir.file("big-new.cpcprof");
    write_variant(big_base, known_variant(1000));
    write_variant(big_new, new_variant(1000));
    RunResult r = diff({big_base, big_new, "--event", "page-faults", "--fail-above", "20"});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("square"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("page-faults"), std::string::npos) << r.err;
    EXPECT_EQ(diff({big_base, big_new, "--fail-above", "20"}).status, 0);
}

// Three runs a side: recurse's share (34.0, 38.6, 36.4 % against 38.7,
// 42.4, 40.6 %) grew by 4.3 points on average but varies from run to run
// by about 2: Welch's test (t = 2.5 on 4 degrees of freedom) calls it
// noise, where the samples of one run a side would gate; a real growth
// (helper, 4.7 % in every new run) still gates.  The CI formats say the
// same.
// Runs of the same program whose CPU time differs by 29.7 % between the
// sides (every count scaled: the same shares): no regression, but a note
// on the table that the machine ran at another pace (the same line goes
// under a regression's summary on stderr).  Runs alike have no note.
TEST_F(DiffTest, RunsAtDifferentPacesAreNoted) {
    std::vector<std::string> base_runs, fast_runs, slow_runs;
    for (int i = 0; i < 3; ++i) {
        base_runs.push_back(dir.file("pb" + std::to_string(i) + ".cpcprof"));
        write_variant(base_runs.back(), known_variant(1000 + 10 * i));
        fast_runs.push_back(dir.file("pf" + std::to_string(i) + ".cpcprof"));
        write_variant(fast_runs.back(), known_variant(1010 - 10 * i));
        slow_runs.push_back(dir.file("ps" + std::to_string(i) + ".cpcprof"));
        write_variant(slow_runs.back(), known_variant(1300 + 10 * i));
    }
    auto gate = [&](const std::vector<std::string> &now) {
        std::vector<std::string> args = base_runs;
        args.emplace_back("--");
        args.insert(args.end(), now.begin(), now.end());
        args.insert(args.end(), {"--fail-above", "2"});
        return diff(args);
    };
    RunResult alike = gate(fast_runs);
    EXPECT_EQ(alike.status, 0) << alike.err;
    EXPECT_EQ(alike.out.find("different paces"), std::string::npos) << alike.out;
    RunResult slow = gate(slow_runs);
    EXPECT_EQ(slow.status, 0) << slow.err;
    EXPECT_NE(slow.out.find("# the runs went at different paces: cpu-clock per run "),
              std::string::npos)
        << slow.out;
    EXPECT_NE(slow.out.find("(+29.70 %)"), std::string::npos) << slow.out; // 14,410 / 11,110
}

TEST_F(DiffTest, SeveralRunsASideMeasureTheirSpread) {
    std::vector<std::string> base_runs, new_runs;
    const int recurse_base[3] = {3600, 4400, 4000}, recurse_new[3] = {4800, 5600, 5200};
    for (int i = 0; i < 3; ++i) {
        Variant b = known_variant(1000);
        b.stacks[1].count = recurse_base[i];
        base_runs.push_back(dir.file("b" + std::to_string(i) + ".cpcprof"));
        write_variant(base_runs.back(), b);
        Variant n = known_variant(1000);
        n.stacks[1].count = recurse_new[i];
        n.stacks.push_back({kHelper, 600, 0});
        new_runs.push_back(dir.file("n" + std::to_string(i) + ".cpcprof"));
        write_variant(new_runs.back(), n);
    }
    std::vector<std::string> args = base_runs;
    args.emplace_back("--");
    args.insert(args.end(), new_runs.begin(), new_runs.end());
    std::string junit = dir.file("gate.xml"), markdown = dir.file("gate.md");
    args.insert(args.end(), {"--fail-above", "2", "--junit", junit, "--markdown", markdown});
    RunResult r = diff(args);
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.out.find("3 runs (" + base_runs[0]), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Welch's t-test over runs"), std::string::npos) << r.out;
    std::vector<std::string> recurse = words_of_line(r.out, "recurse");
    ASSERT_EQ(recurse.size(), 14u) << r.out;
    EXPECT_EQ(recurse[5], "noise") << r.out;
    EXPECT_NE(r.err.find("helper"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("recurse"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("# one run a side:"), std::string::npos) << r.out;
    // The first runs alone: recurse 34.0 % -> 38.7 % of 10,600 and 12,400
    // samples is a regression to the two-proportion test (z = 7.5), which
    // cannot know the spread the runs showed: the table says so.
    r = diff({base_runs[0], new_runs[0], "--fail-above", "2"});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_NE(r.err.find("recurse"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("# one run a side: the test knows the samples' noise, not how much the "
                         "program varies from run to run"),
              std::string::npos)
        << r.out;

    std::string xml = read_file(junit);
    EXPECT_NE(xml.find("<testsuite name=\"cpcprof diff cpu-clock\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
    std::regex failure("<testcase classname=\"[^\"]*\" name=\"helper \\(prog\\)\">\\s*<failure "
                       "type=\"regression\" message=\"[^\"]*Welch");
    EXPECT_TRUE(std::regex_search(xml, failure)) << xml;
    EXPECT_NE(xml.find("name=\"recurse (prog)\">"), std::string::npos) << xml;
    std::string md = read_file(markdown);
    EXPECT_NE(md.find("**Regression**: 1 function grew"), std::string::npos) << md;
    EXPECT_NE(md.find("| **regression** | helper | prog |"), std::string::npos) << md;
    EXPECT_NE(md.find("| *noise* | recurse | prog |"), std::string::npos) << md;
}

TEST_F(DiffTest, PartingDashesAreChecked) {
    RunResult r = diff({base, "--", "--", now});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("give it once"), std::string::npos) << r.err;
    r = diff({base, now, "--"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("NEW's after it"), std::string::npos) << r.err;
    r = diff({base, now, "--confidence", "100"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--confidence"), std::string::npos) << r.err;
}

// The frame of the differential flame graph whose name is name at depth d
// ("all" is 0): its tooltip and fill.
struct HtmlFrame {
    std::string tooltip;
    int r = 0, g = 0, b = 0;
};
std::optional<HtmlFrame> html_frame(const std::string &html, const std::string &escaped_name,
                                    int depth) {
    std::regex re("<g class=\"f\" data-x=\"[^\"]*\" data-w=\"[^\"]*\" data-d=\"" +
                  std::to_string(depth) + "\" data-n=\"" +
                  std::regex_replace(escaped_name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                  "\"><title>([^<]*)</title><rect [^>]*fill=\"rgb\\(([0-9]+),([0-9]+),([0-9]+)\\)");
    std::smatch m;
    if (!std::regex_search(html, m, re))
        return std::nullopt;
    return HtmlFrame{m[1], std::stoi(m[2]), std::stoi(m[3]), std::stoi(m[4])};
}

TEST_F(DiffTest, DifferentialFlameGraph) {
    std::string out = dir.file("diff.html");
    RunResult r = diff({base, now, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string html = read_file(out);
    ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 200);
    EXPECT_EQ(html.find("http://"), std::string::npos) << "the page must not reach the network";
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find(" src="), std::string::npos);
    EXPECT_EQ(html.find(" href="), std::string::npos);

    // Colours follow the self share, what the gate judges; the total is in
    // the tooltip.  main > recurse: on 3 of 11 stacks in BASE, 8 of 20 in
    // NEW, but it takes no sample itself there: its total grew, it stays
    // neutral grey.
    auto rec = html_frame(html, "recurse", 2);
    ASSERT_TRUE(rec) << html;
    EXPECT_NE(rec->tooltip.find("NEW: total " + pct(8 / kNewSamples)), std::string::npos)
        << rec->tooltip;
    EXPECT_NE(rec->tooltip.find("BASE: total " + pct(3 / kBaseSamples)), std::string::npos)
        << rec->tooltip;
    EXPECT_NE(rec->tooltip.find("change: self " + pp(0) + " pp, total " +
                                pp((8 / kNewSamples - 3 / kBaseSamples) * 100) + " pp"),
              std::string::npos)
        << rec->tooltip;
    EXPECT_EQ(std::tie(rec->r, rec->g, rec->b), std::make_tuple(220, 220, 220));
    // main, on every stack of NEW, takes no sample itself: grey too.
    auto main_frame = html_frame(html, "main", 1);
    ASSERT_TRUE(main_frame) << html;
    EXPECT_EQ(std::tie(main_frame->r, main_frame->g, main_frame->b),
              std::make_tuple(220, 220, 220));
    // main > recurse > recurse > recurse, the innermost, takes them: 3 of 11
    // self, then 8 of 20: +12.73 pp, but 11 and 20 samples cannot tell
    // that from noise (its 99 % interval holds 0): grey, and said so.
    auto leaf = html_frame(html, "recurse", 4);
    ASSERT_TRUE(leaf) << html;
    EXPECT_NE(leaf->tooltip.find("change: self " + pp((8 / kNewSamples - 3 / kBaseSamples) * 100) +
                                 " pp (within noise; 99 % interval "),
              std::string::npos)
        << leaf->tooltip;
    EXPECT_EQ(std::tie(leaf->r, leaf->g, leaf->b), std::make_tuple(220, 220, 220));
    // main > compute > square: 6 of 11, then 10 of 20: shrank, within noise.
    auto sq = html_frame(html, "square", 3);
    ASSERT_TRUE(sq) << html;
    EXPECT_NE(sq->tooltip.find("BASE: total " + pct(6 / kBaseSamples)), std::string::npos);
    EXPECT_NE(sq->tooltip.find("(within noise"), std::string::npos) << sq->tooltip;
    EXPECT_EQ(std::tie(sq->r, sq->g, sq->b), std::make_tuple(220, 220, 220));
    // helper is new on its path.
    auto helper = html_frame(html, "helper", 2);
    ASSERT_TRUE(helper);
    EXPECT_NE(helper->tooltip.find("BASE: not on this call path"), std::string::npos);
    // Names are escaped everywhere, in attributes, tooltips and labels.
    EXPECT_TRUE(html_frame(html, "tpl&lt;a&amp;b&gt; &quot;q&quot;", 2)) << html;
    EXPECT_EQ(html.find("tpl<a&b>"), std::string::npos);
    // libx.so is gone: not drawn.
    EXPECT_EQ(html.find("libx.so+0x500"), std::string::npos);
    // The table still goes to stdout.
    EXPECT_FALSE(words_of_line(r.out, "recurse").empty());
}

// With samples enough, the flame graph colours what the test calls more
// than noise, as the gate judges it: BASE 4,000 x square, 4,000 x
// recurse, 2,000 x helper; NEW 3,000, 5,000 and 1,980 (and 20 x tpl):
// square -10 points (blue), recurse +10 (red, full colour), helper -0.2
// (within noise at 99 %: its interval is about +-0.5 points; grey).
TEST_F(DiffTest, FlameGraphColoursOnlyChangesBeyondNoise) {
    Variant before;
    before.stacks = {{kSquare, 4000, 1}, {kRecurse, 4000, 0}, {kHelper, 2000, 0}};
    Variant after;
    after.stacks = {{kSquare, 3000, 1}, {kRecurse, 5000, 0}, {kHelper, 1980, 0}, {kTpl, 20, 0}};
    std::string a = dir.file("big-base.cpcprof"), b = dir.file("big-new.cpcprof");
    write_variant(a, before);
    write_variant(b, after);
    std::string out = dir.file("big.html");
    RunResult r = diff({a, b, "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    std::string html = read_file(out);
    EXPECT_NE(html.find("two-proportion z-test of the two runs' samples, 99 % confidence"),
              std::string::npos);
    auto rec = html_frame(html, "recurse", 4);
    ASSERT_TRUE(rec) << html.substr(0, 3000);
    EXPECT_NE(rec->tooltip.find("change: self +10.00 pp (beyond noise; 99 % interval +8."),
              std::string::npos)
        << rec->tooltip;
    EXPECT_EQ(std::tie(rec->r, rec->g, rec->b), std::make_tuple(255, 120, 120));
    auto sq = html_frame(html, "square", 3);
    ASSERT_TRUE(sq);
    EXPECT_NE(sq->tooltip.find("change: self -10.00 pp (beyond noise"), std::string::npos)
        << sq->tooltip;
    EXPECT_EQ(std::tie(sq->r, sq->g, sq->b), std::make_tuple(120, 120, 255));
    auto helper = html_frame(html, "helper", 2);
    ASSERT_TRUE(helper);
    EXPECT_NE(helper->tooltip.find("change: self -0.20 pp (within noise"), std::string::npos)
        << helper->tooltip;
    EXPECT_EQ(std::tie(helper->r, helper->g, helper->b), std::make_tuple(220, 220, 220));
    // The legend says which confidence coloured the picture.
    r = diff({a, b, "-o", out, "--confidence", "50"});
    ASSERT_EQ(r.status, 0) << r.err;
    html = read_file(out);
    EXPECT_NE(html.find("50 % confidence"), std::string::npos);
}

TEST_F(DiffTest, FlameGraphToStdoutReplacesTheTable) {
    RunResult r = diff({base, now, "-o", "-"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_TRUE(words_of_line(r.out, "recurse").empty());
}

TEST_F(DiffTest, MissingOrForeignFileIsRefused) {
    std::string html = dir.file("diff.html");
    RunResult r = diff({base, dir.file("nope.cpcprof"), "-o", html});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("nope.cpcprof"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;

    std::string text = dir.file("notes.txt");
    {
        std::FILE *f = std::fopen(text.c_str(), "w");
        ASSERT_TRUE(f);
        std::fputs("not a profile\n", f);
        std::fclose(f);
    }
    r = diff({text, now, "-o", html});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
    for (const auto &name : files())
        EXPECT_EQ(name.find("diff.html"), std::string::npos) << name << " was left behind";
}

TEST_F(DiffTest, DifferentEventsCompareTheCommonOnes) {
    Variant v = new_variant();
    v.events = {{"cpu-clock", 1'000'000, true}, {"context-switches", 0, false}};
    std::string other = dir.file("other.cpcprof");
    write_variant(other, v);
    RunResult r = diff({base, other, "--format", "json"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("events differ"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("page-faults"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("context-switches"), std::string::npos) << r.err;
    json doc = json::parse(r.out);
    EXPECT_EQ(doc["events"], json({"cpu-clock"}));
    EXPECT_EQ(doc["events_only_in_base"], json({"page-faults"}));
    EXPECT_EQ(doc["events_only_in_new"], json({"context-switches"}));
    EXPECT_EQ(function(doc, "recurse")["self_points"].size(), 1u);

    r = diff({base, other, "--event", "page-faults"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("only in " + base), std::string::npos) << r.err;

    v.events = {{"task-clock", 1'000'000, true}};
    std::string unrelated = dir.file("unrelated.cpcprof");
    write_variant(unrelated, v);
    r = diff({base, unrelated, "-o", dir.file("diff.html")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no event in common"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("task-clock"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.file("diff.html")));
}

TEST_F(DiffTest, UsageErrors) {
    for (const std::vector<std::string> &args : std::vector<std::vector<std::string>>{
             {base},
             {base, now, now},
             {base, now, "--fail-above", "lots"},
             {base, now, "--fail-above", "-1"},
             {base, now, "--fail-above"},
             {base, now, "--format", "xml"},
             {base, now, "--top", "x"},
             {base, now, "--frobnicate"},
             {base, now, "--event", "cycles"},
         }) {
        RunResult r = diff(args);
        EXPECT_EQ(r.status, 2) << args.back() << ": " << r.err;
        EXPECT_NE(r.err.find("cpcprof diff: "), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    RunResult r = diff({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--fail-above"), std::string::npos);
}

TEST_F(DiffTest, UnwritableFlameGraphFails) {
    RunResult r = diff({base, now, "-o", dir.file("no/such/dir/diff.html")});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no/such/dir/diff.html"), std::string::npos) << r.err;
}

TEST(DiffDemo, ARecordingAgainstItselfHasNoChange) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &demo = demo_profile();
    ASSERT_FALSE(demo.empty());
    TempDir dir;
    std::string html = dir.file("d.html");
    RunResult r = cpcprof(dir, {"diff", demo, demo, "--fail-above", "0", "-o", html, "--format",
                                "json", "--top", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    json doc = json::parse(r.out);
    bool matrix = false;
    for (const json &f : doc["functions"]) {
        EXPECT_EQ(f["status"], "both");
        EXPECT_NEAR(f["self_points"][0].get<double>(), 0, 1e-9);
        matrix = matrix || f["function"] == "matrix_multiply";
    }
    EXPECT_TRUE(matrix) << "the demo's hot function is in the table";
    EXPECT_NE(read_file(html).find("data-n=\"matrix_multiply\""), std::string::npos);
}

} // namespace
} // namespace cpcprof::test
