// SPDX-License-Identifier: MIT
// Every reading command on profiles of every older format version
// (tests/storage/data/README.md), as a user runs them: check names the
// version, report counts the samples the file holds (plain SQL) and names
// the demo's functions where the version was symbolized, flamegraph,
// export and diff against a profile of the current version read them, and
// none of them writes the file or beside it.  symbolize refuses version 1
// and names the way out.
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

namespace cpcprof::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using storagetest::query_text;

struct OldProfile {
    const char *file;
    const char *version_text; // what check says after "format version "
    bool symbolized;
    const char *counters = ""; // run.counters: none said before version 4
};

const OldProfile kOldProfiles[] = {
    {"format-1.cpcprof", "1 (read by migration; this cpcprof writes 6)", false},
    {"format-2.cpcprof", "2 (read by migration; this cpcprof writes 6)", true},
    {"format-3-early-notice.cpcprof",
     "3 (an early form with notices and without accounting.unsampled_ns; read by migration; "
     "this cpcprof writes 6)",
     true},
    {"format-3-early-unsampled.cpcprof",
     "3 (an early form with accounting.unsampled_ns and without notices; read by migration; "
     "this cpcprof writes 6)",
     true},
    {"format-3.cpcprof", "3 (read by migration; this cpcprof writes 6)", true},
    {"format-4.cpcprof", "4 (read by migration; this cpcprof writes 6)", true, "perf_event"},
    {"format-5.cpcprof", "5 (read by migration; this cpcprof writes 6)", true, "perf_event"},
};

struct OlderFormatCommands : ::testing::TestWithParam<OldProfile> {
    TempDir dir;         // outputs
    TempDir profile_dir; // the copy of the fixture, alone in its directory
    std::string file;
    void SetUp() override {
        file = profile_dir.file(GetParam().file);
        fs::copy_file(std::string(STORAGE_TEST_DATA) + "/" + GetParam().file, file);
    }
};

std::string name_of(const ::testing::TestParamInfo<OldProfile> &info) {
    std::string n = fs::path(info.param.file).stem().string();
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
}

TEST_P(OlderFormatCommands, EveryReadingCommandReadsItAndNoneWritesIt) {
    const OldProfile &p = GetParam();
    const uint64_t samples = std::stoull(query_text(file, "SELECT count(*) FROM sample"));
    ASSERT_GT(samples, 100u);
    const FileState before = file_state(file);

    RunResult r = cpcprof(dir, {"check", file});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(r.out.starts_with(file + ": ok: " + std::to_string(samples) + " samples, "))
        << r.out;
    EXPECT_TRUE(r.out.ends_with(std::string(", format version ") + p.version_text + "\n")) << r.out;

    r = cpcprof(dir, {"report", file, "--format", "json", "--top", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    json report = json::parse(r.out);
    EXPECT_EQ(report.at("run").at("samples").at("stored"), samples);
    EXPECT_EQ(report.at("run").at("samples").at("kept"), samples);
    EXPECT_EQ(report.at("run").at("symbolized"), p.symbolized);
    EXPECT_EQ(report.at("run").at("counters"), p.counters);
    std::set<std::string> functions;
    uint64_t self_samples = 0;
    for (const json &row : report.at("rows")) {
        functions.insert(row.at("function").get<std::string>());
        self_samples += row.at("self").at("samples").get<uint64_t>();
    }
    EXPECT_EQ(self_samples, samples) << "every sample's leaf in one row";
    for (const char *fn : {"main", "matrix_multiply", "walk_list"})
        EXPECT_EQ(functions.count(fn), p.symbolized ? 1u : 0u) << fn;
    // No version before 5 says which processor took a sample: --cpu keeps
    // none, and says why.
    r = cpcprof(dir, {"report", file, "--cpu", "0"});
    EXPECT_EQ(r.status, 0) << r.err;
    if (std::string(p.version_text).starts_with("5 "))
        EXPECT_EQ(r.err.find("does not say which processor"), std::string::npos) << r.err;
    else
        EXPECT_NE(r.err.find("--cpu: this profile does not say which processor took its samples"),
                  std::string::npos)
            << r.err;
    r = cpcprof(dir, {"report", file});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find("matrix_multiply") != std::string::npos, p.symbolized) << r.out;
    if (!p.symbolized) { // addresses: the demo's module and offset; no advice to symbolize
        EXPECT_NE(r.out.find("cpcprof-demo+0x"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("# modules without symbols: not symbolized (format version 1 has "
                             "no symbol tables)\n"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.err.find("format version 1 has no symbol tables: record the program again "
                             "for function names"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(r.err.find("cpcprof symbolize"), std::string::npos) << r.err;
    }

    r = cpcprof(dir, {"flamegraph", file, "-o", dir.file("f.svg")});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read_file(dir.file("f.svg")).find("matrix_multiply") != std::string::npos,
              p.symbolized);

    // Weighed by samples: each distinct stack once, with its count.
    r = cpcprof(dir, {"export", file, "--format", "speedscope", "--event", "samples", "-o",
                      dir.file("s.json")});
    EXPECT_EQ(r.status, 0) << r.err;
    json speedscope = json::parse(read_file(dir.file("s.json")));
    uint64_t exported = 0;
    for (const json &prof : speedscope.at("profiles"))
        for (const json &w : prof.at("weights"))
            exported += w.get<uint64_t>();
    EXPECT_EQ(exported, samples);
    r = cpcprof(dir, {"export", file, "-o", dir.file("p.pb.gz")});
    EXPECT_EQ(r.status, 0) << r.err;

    if (p.symbolized) {
        r = cpcprof(dir, {"annotate", file, "matrix_multiply"});
        // The demo's source went with the old build's worktree: annotate
        // still finds the function and counts its lines.
        EXPECT_NE(r.out.find("matrix_multiply"), std::string::npos) << r.out << r.err;
        EXPECT_NE(r.status, 2) << r.err;
    }

    EXPECT_TRUE(file_state(file) == before) << "a command wrote the file or beside it";
}

// diff between an old baseline and a profile of this version: the CI
// gate's use.  Both sides are read whole; the demo's functions are matched
// by name where the old version was symbolized, and are only in the new
// profile where it was not (version 1: addresses).
TEST_P(OlderFormatCommands, DiffAgainstTheCurrentVersion) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const OldProfile &p = GetParam();
    const std::string &now = demo_profile();
    ASSERT_FALSE(now.empty());
    ASSERT_EQ(query_text(now, "PRAGMA user_version"), "6");
    const FileState before = file_state(file);
    RunResult r = cpcprof(dir, {"diff", file, now});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    r = cpcprof(dir, {"diff", file, now, "--format", "json", "--top", "0"});
    ASSERT_EQ(r.status, 0) << r.err;
    json diff = json::parse(r.out);
    EXPECT_EQ(diff.at("base").at("samples"),
              std::stoull(query_text(file, "SELECT count(*) FROM sample")));
    EXPECT_EQ(diff.at("new").at("samples"),
              std::stoull(query_text(now, "SELECT count(*) FROM sample")));
    std::string walk_list;
    for (const json &f : diff.at("functions"))
        if (f.at("function") == "walk_list" && f.at("module") == "cpcprof-demo")
            walk_list = f.at("status").get<std::string>();
    EXPECT_EQ(walk_list, p.symbolized ? "both" : "new") << r.out;
    EXPECT_TRUE(file_state(file) == before);
}

// symbolize writes into the file: version 1 has no symbol tables, and is
// refused, unchanged, saying what to do; later versions are rewritten in
// place.
TEST_P(OlderFormatCommands, SymbolizeRefusesVersionOneOnly) {
    const OldProfile &p = GetParam();
    const std::string bytes = read_file(file);
    RunResult r = cpcprof(dir, {"symbolize", file});
    if (p.symbolized) {
        EXPECT_EQ(r.status, 0) << r.err;
        return;
    }
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("profile format version 1 has no symbol tables to write; this cpcprof "
                         "reads it as never symbolized but does not convert it: record the "
                         "program again for function names"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_file(file), bytes);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, OlderFormatCommands, ::testing::ValuesIn(kOldProfiles), name_of);

} // namespace
} // namespace cpcprof::test
