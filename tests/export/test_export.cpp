// SPDX-License-Identifier: MIT
// cpcprof export run as a user runs it, each format read back by a tool
// that did not write it: folded stacks parsed back, pprof gunzipped and
// decoded by protoc against google/pprof's profile.proto (and, where Go is
// installed, summarised by `go tool pprof -top`), speedscope validated by
// python3-jsonschema against the file format's schema
// (data/speedscope-file-format-schema.json) and read with nlohmann::json.
// Expectations follow from the known profile's documented samples
// (tests/storage/helpers.h: write_known_profile).
#include "tests/view_common/pprof_text.h"
#include "tests/view_common/view_harness.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <sys/wait.h>

namespace cpcprof::test {
namespace {

using namespace storagetest;
using nlohmann::json;
using Names = std::vector<std::string>;

// The known profile per distinct stack, root first: cpu-clock is 1e6 per
// sample; page faults as documented.
struct KnownStack {
    Names names;
    uint64_t samples, faults;
    int tid;
};
const std::vector<KnownStack> kKnown = {
    {{"main", "compute", "square"}, 6, 12, 100},
    {{"main", "recurse", "recurse", "recurse"}, 3, 0, 100},
    {{"main", "libx.so+0x500"}, 1, 5, 101},
    {{"[truncated]", "recurse", "recurse"}, 1, 0, 101}, // cut short by the recorder
};
constexpr uint64_t kPeriod = 1'000'000;

std::string join(const Names &n, const char *sep = ";") {
    std::string s;
    for (const std::string &x : n)
        s += (s.empty() ? "" : sep) + x;
    return s;
}

// Folded text back into stack -> value; a malformed line fails the test.
std::map<std::string, uint64_t> parse_folded(const std::string &text) {
    std::map<std::string, uint64_t> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        EXPECT_NE(nl, std::string::npos) << "last line without newline";
        std::string line = text.substr(at, nl - at);
        at = nl == std::string::npos ? text.size() : nl + 1;
        size_t sp = line.rfind(' ');
        EXPECT_NE(sp, std::string::npos) << line;
        if (sp == std::string::npos)
            continue;
        EXPECT_EQ(line.find_first_not_of("0123456789", sp + 1), std::string::npos) << line;
        EXPECT_EQ(out.count(line.substr(0, sp)), 0u) << "stack twice: " << line;
        out[line.substr(0, sp)] = std::stoull(line.substr(sp + 1));
    }
    return out;
}

int shell(const std::string &command) {
    int rc = std::system(command.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

// A profile whose function names need care: ';' and a newline (folded),
// a quote, a backslash and a byte that is not UTF-8 (JSON).
const std::string kOddName = "operator;\nfoo";
const std::string kQuoteName = std::string("q\"\\x\xff");

void write_odd_profile(const std::string &file) {
    constexpr uint64_t kProg = 0x400000;
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    w->begin_run(test_run());
    w->add_process({100, 1, {"./odd"}, "/opt/odd", kStartMono});
    w->add_thread({100, 100, "odd"});
    w->add_module({100, "/opt/odd", "", kProg, kProg + 0x10000, 0, kStartMono});
    const std::vector<uint64_t> values = {kPeriod, 0};
    const std::vector<uint64_t> a = {kProg + 0x2004, kProg + 0x1010},
                                b = {kProg + 0x3004, kProg + 0x1010};
    w->add_sample({100, 100, kStartMono + 1'000'000, true, a, values});
    w->add_sample({100, 100, kStartMono + 2'000'000, true, b, values});
    w->add_accounting(100, {2, 2, 0});
    ASSERT_TRUE(w->finish(kStartMono + 3'000'000, &error)) << error;
    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/odd.c", 1, false}}},
        {0x2004, {{kOddName, "/src/odd.c", 2, false}}},
        {0x3004, {{kQuoteName, "/src/odd.c", 3, false}}},
    };
    for (const AddressToResolve &ad : s->addresses()) {
        s->add(ad.module_id, ad.offset, answers.at(ad.offset));
        s->set_module_symbols(ad.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

struct ExportTest : ::testing::Test {
    TempDir dir;
    std::string known = dir.file("known.cpcprof");

    void SetUp() override { write_known_profile(known); }

    // cpcprof export ARGS; fails the test unless it exits with `status`.
    RunResult run(std::vector<std::string> args, int status = 0) {
        args.insert(args.begin(), "export");
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, status) << r.err;
        return r;
    }
    std::map<std::string, uint64_t> folded(std::vector<std::string> args) {
        std::string out = dir.file("out.folded");
        args.insert(args.end(), {"--format", "folded", "-o", out});
        run(args);
        return parse_folded(read_file(out));
    }
};

// ---- folded ----------------------------------------------------------------

TEST_F(ExportTest, FoldedHasOneLinePerStackWeighedByTheSamplingEvent) {
    std::map<std::string, uint64_t> expected;
    for (const KnownStack &k : kKnown)
        expected[join(k.names)] = k.samples * kPeriod;
    EXPECT_EQ(folded({known}), expected);
    // The brief's example line, literally.
    EXPECT_NE(read_file(dir.file("out.folded")).find("main;compute;square 6000000\n"),
              std::string::npos);
}

TEST_F(ExportTest, FoldedWeighsByAnotherEventOrBySamples) {
    std::map<std::string, uint64_t> faults, samples;
    for (const KnownStack &k : kKnown) {
        if (k.faults != 0) // stacks worth nothing are left out
            faults[join(k.names)] = k.faults;
        samples[join(k.names)] = k.samples;
    }
    EXPECT_EQ(folded({known, "--event", "page-faults"}), faults);
    EXPECT_EQ(folded({known, "--event", "samples"}), samples);
}

TEST_F(ExportTest, FoldedFollowsTheFilters) {
    auto worker = folded({known, "--tid", "101"});
    EXPECT_EQ(worker.size(), 2u);
    EXPECT_EQ(worker["main;libx.so+0x500"], kPeriod);
    // square is inlined into compute: without inline frames it is compute's.
    auto no_inline = folded({known, "--no-inline", "--time", "0,0.016"});
    EXPECT_EQ(no_inline, (std::map<std::string, uint64_t>{{"main;compute", 6 * kPeriod}}));
}

TEST_F(ExportTest, FoldedNamesCannotBreakTheFormat) {
    std::string odd = dir.file("odd.cpcprof");
    write_odd_profile(odd);
    auto stacks = folded({odd});
    ASSERT_EQ(stacks.size(), 2u);
    // One line per stack, two frames each: ';' and the newline replaced.
    for (const auto &[stack, value] : stacks) {
        EXPECT_EQ(std::count(stack.begin(), stack.end(), ';'), 1) << stack;
        EXPECT_EQ(stack.rfind("main;", 0), 0u) << stack;
        EXPECT_EQ(value, kPeriod);
    }
    EXPECT_EQ(stacks.count("main;operator: foo"), 1u);
}

// ---- pprof -----------------------------------------------------------------

struct PprofTest : ExportTest {
    void SetUp() override {
        if (protoc_path().empty() || pprof_proto_path().empty())
            GTEST_SKIP() << "protoc or google/pprof's profile.proto is missing (Debian "
                            "protobuf-compiler, golang-github-google-pprof-dev: "
                            "packaging/install-deps.sh)";
        ExportTest::SetUp();
    }
    PprofProfile pprof(std::vector<std::string> args, const std::string &name = "p.pb.gz") {
        std::string out = dir.file(name);
        args.insert(args.end(), {"-o", out});
        run(args);
        PprofProfile p;
        std::string error;
        EXPECT_TRUE(decode_pprof(out, dir.path(), &p, &error)) << error;
        return p;
    }
};

TEST_F(PprofTest, SampleTypesPeriodAndTimes) {
    PprofProfile p = pprof({known, "--format", "pprof"});
    using VT = std::pair<std::string, std::string>;
    EXPECT_EQ(p.sample_types,
              (std::vector<VT>{
                  {"samples", "count"}, {"cpu-clock", "nanoseconds"}, {"page-faults", "count"}}));
    EXPECT_EQ(p.period_type, VT("cpu-clock", "nanoseconds"));
    EXPECT_EQ(p.period, int64_t(kPeriod));
    EXPECT_EQ(p.default_sample_type, "cpu-clock");
    ASSERT_FALSE(p.strings.empty());
    EXPECT_EQ(p.strings[0], "");
    EXPECT_EQ(p.time_nanos, test_run().start_ns);
    EXPECT_EQ(p.duration_nanos, 50'000'000); // the run ended 50 ms after its start
    ASSERT_EQ(p.comments.size(), 2u);
    EXPECT_NE(p.comments[0].find("known.cpcprof"), std::string::npos);
    // test_run()'s command, {"./prog", "--size", "big arg with spaces", ""}, as shell words.
    EXPECT_EQ(p.comments[1], "command: ./prog --size 'big arg with spaces' ''");

    // --event picks the default sample type; a time window moves the start.
    PprofProfile f = pprof({known, "--event", "page-faults", "--time", "0.02,0.03"}, "f.pb.gz");
    EXPECT_EQ(f.default_sample_type, "page-faults");
    EXPECT_EQ(f.time_nanos, test_run().start_ns + 20'000'000);
    EXPECT_EQ(f.duration_nanos, 10'000'000);
    ASSERT_EQ(f.samples.size(), 1u); // the three recurse samples, 20..22 ms
    EXPECT_EQ(f.samples[0].values, (std::vector<int64_t>{3, 3 * int64_t(kPeriod), 0}));
}

TEST_F(PprofTest, OneSamplePerStackAndThreadWithEveryValue) {
    PprofProfile p = pprof({known, "-o", "ignored.folded", "--format", "pprof"});
    ASSERT_EQ(p.samples.size(), kKnown.size());
    for (const KnownStack &k : kKnown) {
        Names leaf_first(k.names.rbegin(), k.names.rend());
        auto it = std::find_if(p.samples.begin(), p.samples.end(),
                               [&](const PprofSample &s) { return s.names() == leaf_first; });
        ASSERT_NE(it, p.samples.end()) << join(k.names);
        EXPECT_EQ(it->values,
                  (std::vector<int64_t>{int64_t(k.samples), int64_t(k.samples * kPeriod),
                                        int64_t(k.faults)}))
            << join(k.names);
        EXPECT_EQ(it->num_labels.at("tid"), k.tid);
        EXPECT_EQ(it->num_labels.at("pid"), 100);
        EXPECT_EQ(it->str_labels.at("thread"), k.tid == 100 ? "prog" : "worker");
    }
}

TEST_F(PprofTest, InlinedCallsAreLinesOfOneLocationInnermostFirst) {
    PprofProfile p = pprof({known, "--format", "pprof"});
    const PprofSample *compute = nullptr, *libx = nullptr;
    for (const PprofSample &s : p.samples) {
        if (s.names().front() == "square")
            compute = &s;
        if (s.names().front() == "libx.so+0x500")
            libx = &s;
    }
    ASSERT_TRUE(compute && libx);
    // square (m.h:3) inlined into compute (a.c:20): one location, two lines.
    ASSERT_EQ(compute->locations.size(), 2u);
    const auto &lines = compute->locations[0]->lines;
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].function, "square");
    EXPECT_EQ(lines[0].filename, "/src/m.h");
    EXPECT_EQ(lines[0].line, 3);
    EXPECT_EQ(lines[1].function, "compute");
    EXPECT_EQ(lines[1].filename, "/src/a.c");
    EXPECT_EQ(lines[1].line, 20);
    EXPECT_EQ(compute->locations[0]->mapping, "/opt/prog");
    // main calls compute at a.c:10 and libx at a.c:11: two locations.
    ASSERT_EQ(compute->locations[1]->lines.size(), 1u);
    EXPECT_EQ(compute->locations[1]->lines[0].line, 10);
    EXPECT_EQ(libx->locations[1]->lines[0].line, 11);
    EXPECT_NE(compute->locations[1], libx->locations[1]);
    EXPECT_EQ(libx->locations[0]->mapping, "/lib/libx.so");

    ASSERT_EQ(p.mappings.size(), 2u);
    for (const PprofMapping &m : p.mappings) {
        EXPECT_TRUE(m.has_functions) << m.filename;
        if (m.filename == "/opt/prog") {
            EXPECT_EQ(m.memory_start, 0x400000u);
            EXPECT_EQ(m.memory_limit, 0x410000u);
            EXPECT_TRUE(m.has_line_numbers && m.has_inline_frames);
        } else {
            EXPECT_EQ(m.filename, "/lib/libx.so");
            EXPECT_FALSE(m.has_line_numbers) << "libx.so has no symbols";
        }
    }

    // --no-inline: square's cost is compute's, at the line of the call.
    PprofProfile n = pprof({known, "--format", "pprof", "--no-inline"}, "n.pb.gz");
    for (const PprofSample &s : n.samples)
        if (s.values[0] == 6) {
            EXPECT_EQ(s.names(), (Names{"compute", "main"}));
            EXPECT_EQ(s.locations[0]->lines.at(0).line, 20);
        }
}

TEST_F(PprofTest, GoToolPprofReadsIt) {
    if (shell("command -v go > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "go is not installed: `go tool pprof` not tried (protoc checked the rest)";
    std::string out = dir.file("p.pb.gz");
    run({known, "--format", "pprof", "-o", out});
    std::string top = dir.file("top.txt");
    ASSERT_EQ(shell("cd '" + dir.path() + "' && HOME='" + dir.path() +
                    "' go tool pprof -top -sample_index=cpu-clock '" + out + "' > '" + top +
                    "' 2>&1"),
              0)
        << read_file(top);
    std::string text = read_file(top);
    // square: 6 of 11 ms flat, the first row; main: 10 of 11 ms cumulative.
    EXPECT_NE(text.find("Type: cpu-clock"), std::string::npos) << text;
    std::vector<std::string> rows =
        split_lines(text.substr(std::min(text.size(), text.find("flat%"))));
    ASSERT_GE(rows.size(), 2u) << text;
    auto fields = [](const std::string &row) {
        std::istringstream ws(row);
        std::vector<std::string> f;
        for (std::string w; ws >> w;)
            f.push_back(w);
        return f;
    };
    std::vector<std::string> first = fields(rows[1]);
    ASSERT_GE(first.size(), 6u) << rows[1];
    EXPECT_EQ(first[0], "6ms");
    EXPECT_EQ(first[1], "54.55%");
    EXPECT_EQ(first[5], "square");
    bool main_seen = false;
    for (const std::string &row : rows) {
        std::vector<std::string> f = fields(row);
        if (f.size() >= 6 && f[5] == "main") {
            main_seen = true;
            EXPECT_EQ(f[3], "10ms") << row;
        }
    }
    EXPECT_TRUE(main_seen) << text;
}

// ---- speedscope ------------------------------------------------------------

struct SpeedscopeTest : ExportTest {
    std::string python = SPEEDSCOPE_PYTHON;
    std::string schema = SPEEDSCOPE_SCHEMA;

    void SetUp() override {
        if (python.empty() || shell(python + " -c 'import jsonschema' 2> /dev/null") != 0)
            GTEST_SKIP() << "python3 with jsonschema is missing (Debian python3-jsonschema: "
                            "packaging/install-deps.sh)";
        ExportTest::SetUp();
    }
    // jsonschema's verdict on file: "" valid, else its message.
    std::string validate(const std::string &file) {
        std::string err = dir.file("schema.err");
        int rc = shell(python +
                       " -c 'import json, sys, jsonschema; "
                       "jsonschema.validate(json.load(open(sys.argv[2], encoding=\"utf-8\")), "
                       "json.load(open(sys.argv[1])))' '" +
                       schema + "' '" + file + "' > '" + err + "' 2>&1");
        return rc == 0 ? "" : read_file(err) + " (status " + std::to_string(rc) + ")";
    }
    json speedscope(std::vector<std::string> args) {
        std::string out = dir.file("s.json");
        args.insert(args.end(), {"--format", "speedscope", "-o", out});
        run(args);
        EXPECT_EQ(validate(out), "");
        return json::parse(read_file(out));
    }
    // A profile's stacks as names root first -> weight.
    static std::map<std::string, uint64_t> stacks(const json &doc, const json &profile) {
        std::map<std::string, uint64_t> out;
        const json &frames = doc["shared"]["frames"];
        EXPECT_EQ(profile["samples"].size(), profile["weights"].size());
        for (size_t i = 0; i < profile["samples"].size(); ++i) {
            Names names;
            for (const json &f : profile["samples"][i])
                names.push_back(frames.at(f.get<size_t>())["name"]);
            out[join(names)] += profile["weights"][i].get<uint64_t>();
        }
        return out;
    }
};

TEST_F(SpeedscopeTest, TheValidatorRejectsWhatTheSchemaForbids) {
    std::string bad = dir.file("bad.json");
    ASSERT_EQ(shell("printf '%s' '{\"$schema\":\"https://www.speedscope.app/file-format-schema."
                    "json\",\"shared\":{\"frames\":[]},\"profiles\":[{\"type\":\"sampled\","
                    "\"name\":\"x\",\"unit\":\"furlongs\",\"startValue\":0,\"endValue\":0,"
                    "\"samples\":[],\"weights\":[]}]}' > '" +
                    bad + "'"),
              0);
    EXPECT_NE(validate(bad), "") << "a unit outside the schema's list was accepted";
}

TEST_F(SpeedscopeTest, OneSampledProfilePerThread) {
    json doc = speedscope({known});
    ASSERT_EQ(doc["profiles"].size(), 2u);
    const json &prog = doc["profiles"][0], &worker = doc["profiles"][1];
    EXPECT_EQ(prog["type"], "sampled");
    EXPECT_EQ(prog["unit"], "nanoseconds");
    EXPECT_NE(prog["name"].get<std::string>().find("tid 100"), std::string::npos);
    EXPECT_NE(worker["name"].get<std::string>().find("worker"), std::string::npos);
    std::map<std::string, uint64_t> want_prog, want_worker;
    for (const KnownStack &k : kKnown)
        (k.tid == 100 ? want_prog : want_worker)[join(k.names)] = k.samples * kPeriod;
    EXPECT_EQ(stacks(doc, prog), want_prog);
    EXPECT_EQ(stacks(doc, worker), want_worker);
    EXPECT_EQ(prog["startValue"], 0);
    EXPECT_EQ(prog["endValue"], 9 * kPeriod);
    EXPECT_EQ(worker["endValue"], 2 * kPeriod);
    EXPECT_EQ(doc["activeProfileIndex"], 0); // the heaviest thread
    // Frames are functions, with their source file.
    size_t squares = 0;
    for (const json &f : doc["shared"]["frames"])
        if (f["name"] == "square") {
            ++squares;
            EXPECT_EQ(f["file"], "/src/m.h");
        }
    EXPECT_EQ(squares, 1u);
}

TEST_F(SpeedscopeTest, CountsHaveNoUnit) {
    json doc = speedscope({known, "--event", "page-faults"});
    ASSERT_EQ(doc["profiles"].size(), 2u);
    EXPECT_EQ(doc["profiles"][0]["unit"], "none");
    EXPECT_EQ(stacks(doc, doc["profiles"][0]),
              (std::map<std::string, uint64_t>{{"main;compute;square", 12}}));
    EXPECT_EQ(stacks(doc, doc["profiles"][1]),
              (std::map<std::string, uint64_t>{{"main;libx.so+0x500", 5}}));
    json s = speedscope({known, "--event", "samples", "--tid", "101"});
    ASSERT_EQ(s["profiles"].size(), 1u);
    EXPECT_EQ(s["profiles"][0]["unit"], "none");
    EXPECT_EQ(s["profiles"][0]["endValue"], 2);
}

TEST_F(SpeedscopeTest, NamesAreValidJsonStrings) {
    std::string odd = dir.file("odd.cpcprof");
    write_odd_profile(odd);
    json doc = speedscope({odd});
    auto got = stacks(doc, doc["profiles"][0]);
    EXPECT_EQ(got.count("main;" + kOddName), 1u); // kept as it is: JSON escapes it
    // The byte that is not UTF-8 becomes U+FFFD; the quote and backslash stay.
    EXPECT_EQ(got.count("main;q\"\\x\xEF\xBF\xBD"), 1u);
}

// ---- all formats, a real recording, bad input -------------------------------

TEST_F(ExportTest, TheDemoRecordingAgreesAcrossFormats) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &demo = demo_profile();
    ASSERT_FALSE(demo.empty());
    auto f = folded({demo});
    uint64_t folded_total = 0;
    bool checksum = false, multiply = false;
    for (const auto &[stack, value] : f) {
        folded_total += value;
        checksum |= stack.find("checksum") != std::string::npos;
        multiply |= stack.find("matrix_multiply") != std::string::npos;
    }
    EXPECT_TRUE(checksum && multiply);
    std::string s = dir.file("demo.json");
    run({demo, "--format", "speedscope", "-o", s});
    json doc = json::parse(read_file(s));
    EXPECT_GE(doc["profiles"].size(), 2u); // the main thread and the checksum thread
    uint64_t speedscope_total = 0;
    for (const json &p : doc["profiles"])
        speedscope_total += p["endValue"].get<uint64_t>();
    EXPECT_EQ(speedscope_total, folded_total);
    if (!protoc_path().empty() && !pprof_proto_path().empty()) {
        std::string pb = dir.file("demo.pb.gz");
        run({demo, "-o", pb});
        PprofProfile p;
        std::string error;
        ASSERT_TRUE(decode_pprof(pb, dir.path(), &p, &error)) << error;
        uint64_t pprof_total = 0;
        for (const PprofSample &smp : p.samples)
            pprof_total += uint64_t(smp.values.at(1));
        EXPECT_EQ(pprof_total, folded_total);
    }
}

TEST_F(ExportTest, BadInputIsRefusedAndLeavesNoOutput) {
    std::string out = dir.file("x.folded");
    auto refused = [&](std::vector<std::string> args, int status, const std::string &says) {
        RunResult r = run(args, status);
        EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << join(args, " ");
        EXPECT_EQ(r.out, "");
    };
    refused({dir.file("missing.cpcprof"), "-o", out}, 1, "missing.cpcprof");
    std::string text = dir.file("not-a-profile");
    write_bytes(text, {'h', 'e', 'l', 'l', 'o', '\n'});
    refused({text, "-o", out}, 1, "not-a-profile");
    refused({known, "-o", out, "--event", "cycles"}, 2, "cycles");
    refused({known, "-o", out, "--format", "svg"}, 2, "unknown format 'svg'");
    refused({known, "-o", dir.file("x.txt")}, 2, "--format");
    refused({known, "-o", out, "--time", "5,1"}, 2, "--time");
    refused({known, "-o", out, "--bogus"}, 2, "--bogus");
    std::string nowhere = dir.file("no/such/dir/x.folded");
    RunResult r = run({known, "--format", "folded", "-o", nowhere}, 1);
    EXPECT_NE(r.err.find("no/such/dir"), std::string::npos) << r.err;
    // A directory where the output should go: the export is written to a
    // temporary file that cannot be renamed over it, and removed.
    std::string taken = dir.file("taken.pb.gz");
    std::filesystem::create_directory(taken);
    r = run({known, "-o", taken}, 1);
    EXPECT_NE(r.err.find("taken.pb.gz"), std::string::npos) << r.err;
    for (const auto &entry : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().filename().string().find(".taken"), std::string::npos)
            << "left behind: " << entry.path();
}

TEST_F(ExportTest, HelpAndStdout) {
    RunResult h = run({"--help"});
    EXPECT_NE(h.out.find("--format"), std::string::npos);
    RunResult r = run({known, "--format", "folded", "--event", "samples"});
    EXPECT_EQ(parse_folded(r.out).size(), kKnown.size());
}

} // namespace
} // namespace cpcprof::test
