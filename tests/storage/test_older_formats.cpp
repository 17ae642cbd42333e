// SPDX-License-Identifier: MIT
// Every format version this project has written opens: profiles recorded
// by the cpcprof of each older version (data/README.md) are read where
// they lie, what they hold agrees with plain SQL on the file, what their
// version lacks reads as absent, and the file is never written.  Symbolize
// rewrites the symbols of versions 2 and 3 in place and refuses version 1.
#include "tests/storage/helpers.h"
#include "tests/support/files.h"

#include "storage/src/schema.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace storagetest {
namespace {

namespace fs = std::filesystem;
namespace schema = cpcprof::storage::schema;
using cpcprof::test::file_state;
using cpcprof::test::FileState;

struct OldProfile {
    const char *file;
    int version;
    const char *form; // schema::Layout::form
    bool symbols, notices, unsampled;
    const char *counters = ""; // run.counters: none said before version 4
};

constexpr const char *kEarlyNotice = "an early form with notices and without "
                                     "accounting.unsampled_ns";
constexpr const char *kEarlyUnsampled = "an early form with accounting.unsampled_ns and "
                                        "without notices";

const OldProfile kOldProfiles[] = {
    {"format-1.cpcprof", 1, "", false, false, false},
    {"format-2.cpcprof", 2, "", true, false, false},
    {"format-3-early-notice.cpcprof", 3, kEarlyNotice, true, true, false},
    {"format-3-early-unsampled.cpcprof", 3, kEarlyUnsampled, true, false, true},
    {"format-3.cpcprof", 3, "", true, true, true},
    {"format-4.cpcprof", 4, "", true, true, true, "perf_event"},
    {"format-5.cpcprof", 5, "", true, true, true, "perf_event"},
};

std::string fixture(const OldProfile &p) {
    return std::string(STORAGE_TEST_DATA) + "/" + p.file;
}

struct OlderFormat : StorageTest, ::testing::WithParamInterface<OldProfile> {};

std::string name_of(const ::testing::TestParamInfo<OldProfile> &info) {
    std::string n = fs::path(info.param.file).stem().string();
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
}

TEST_P(OlderFormat, ReadsWhatTheFileHoldsWithoutWritingIt) {
    const OldProfile &p = GetParam();
    const std::string file = fixture(p);
    ASSERT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(p.version));
    const FileState before = file_state(file);

    std::string error;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_EQ(r->file_format().version, p.version);
    EXPECT_EQ(r->file_format().form, p.form);
    EXPECT_TRUE(r->complete());
    EXPECT_FALSE(r->run().events.empty());
    EXPECT_EQ(r->run().events[0].name, "cpu-clock");
    EXPECT_EQ(r->run().counters, p.counters);
    EXPECT_EQ(r->run().counters_reason, "");

    // What the file holds, by plain SQL.
    const uint64_t samples = std::stoull(query_text(file, "SELECT count(*) FROM sample"));
    ASSERT_GT(samples, 100u);
    EXPECT_EQ(r->sample_count(), samples);
    uint64_t visited = 0;
    std::set<std::string> functions;
    uint64_t with_cpu = 0;
    EXPECT_TRUE(r->for_each_sample(
        [&](const StoredSample &s) {
            ++visited;
            with_cpu += s.cpu != -1;
        },
        &error))
        << error;
    EXPECT_EQ(visited, samples);
    if (p.version < 5)
        EXPECT_EQ(with_cpu, 0u) << "no version before 5 kept a sample's processor";
    else
        EXPECT_EQ(with_cpu, samples) << "the agent says each sample's processor";
    EXPECT_TRUE(r->off_cpu().empty()) << "no version before 6 kept off-CPU time";
    EXPECT_EQ(r->off_cpu_event(), -1);
    EXPECT_EQ(r->threads().size(), std::stoull(query_text(file, "SELECT count(*) FROM thread")));
    EXPECT_EQ(r->accounting_total().stored,
              std::stoull(query_text(file, "SELECT sum(stored) FROM accounting")));
    EXPECT_EQ(r->accounting_total().stored, samples);
    EXPECT_TRUE(r->accounting_balanced());
    if (p.unsampled)
        EXPECT_EQ(r->accounting_total().unsampled_ns,
                  std::stoull(query_text(file, "SELECT sum(unsampled_ns) FROM accounting")));
    else
        EXPECT_EQ(r->accounting_total().unsampled_ns, 0u) << "not measured then";
    if (p.notices)
        EXPECT_EQ(r->notices().size(),
                  std::stoull(query_text(file, "SELECT count(*) FROM notice")));
    else
        EXPECT_TRUE(r->notices().empty());

    // Symbols: from version 2 on, record symbolized its profile.
    EXPECT_EQ(r->symbolized(), p.symbols);
    const auto &names = r->symbol_table().functions();
    for (const char *fn : {"main", "matrix_multiply", "walk_list"})
        EXPECT_EQ(std::count(names.begin(), names.end(), fn), p.symbols ? 1 : 0) << fn;
    if (p.symbols) {
        EXPECT_EQ(r->symbol_table().size(),
                  std::stoull(query_text(file, "SELECT count(DISTINCT module || ',' || "
                                               "file_offset) FROM symbol")));
    } else {
        EXPECT_TRUE(r->symbol_table().empty());
        for (const ModuleRecord &m : r->modules())
            EXPECT_FALSE(m.has_symbols.has_value()) << m.info.path;
    }
    r.reset();
    EXPECT_TRUE(file_state(file) == before) << file << " changed, or a file appeared beside it";
}

// Versions 2 to 4 have this version's symbol tables: symbolize rewrites
// them in place and leaves the version as it is.  Version 1 has none to
// write, and is refused with what to do.
TEST_P(OlderFormat, SymbolizeRewritesInPlaceOrRefusesVersionOne) {
    const OldProfile &p = GetParam();
    const std::string file = path(p.file);
    fs::copy_file(fixture(p), file);
    if (!p.symbols) {
        const std::vector<char> bytes = read_bytes(file);
        std::string error;
        EXPECT_FALSE(SymbolWriter::open(file, &error));
        EXPECT_EQ(error, file + ": profile format version 1 has no symbol tables to write; this "
                                "cpcprof reads it as never symbolized but does not convert it: "
                                "record the program again for function names");
        EXPECT_EQ(read_bytes(file), bytes);
        return;
    }
    symbolize_profile(file); // made-up answers: fn_OFFSET
    EXPECT_EQ(query_text(file, "PRAGMA user_version"), std::to_string(p.version));
    EXPECT_EQ(integrity_check(file), "ok");
    std::string error;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_EQ(r->file_format().form, p.form) << "the layout is kept";
    const auto &names = r->symbol_table().functions();
    EXPECT_EQ(std::count(names.begin(), names.end(), "matrix_multiply"), 0);
    EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                            [](const std::string &n) { return n.starts_with("fn_"); }));
}

// An older layout is held to its own statements as strictly as the
// current one: nothing added, nothing of another version.
TEST_F(StorageTest, OlderLayoutsAreHeldToTheirSchema) {
    const std::string trigger = path("trigger.cpcprof"), mixed = path("mixed.cpcprof");
    fs::copy_file(std::string(STORAGE_TEST_DATA) + "/format-2.cpcprof", trigger);
    ASSERT_EQ(run_sql(trigger, "CREATE TRIGGER t AFTER INSERT ON symbol BEGIN "
                               "DELETE FROM sample; END"),
              "");
    std::string error;
    EXPECT_FALSE(Reader::open(trigger, &error));
    EXPECT_NE(error.find("schema differs from format version 2: trigger 't' is unexpected"),
              std::string::npos)
        << error;
    // Version 1 with version 2's symbol tables is neither.
    fs::copy_file(std::string(STORAGE_TEST_DATA) + "/format-1.cpcprof", mixed);
    ASSERT_EQ(run_sql(mixed, "CREATE TABLE function_name(id INTEGER PRIMARY KEY, name TEXT NOT "
                             "NULL)"),
              "");
    EXPECT_FALSE(Reader::open(mixed, &error));
    EXPECT_NE(error.find("schema differs from format version 1: table 'function_name' is "
                         "unexpected"),
              std::string::npos)
        << error;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, OlderFormat, ::testing::ValuesIn(kOldProfiles), name_of);

// The statements of every layout make a schema, and the current layout's
// are the writer's own.
TEST(SchemaHistory, EveryReadableVersionHasLayouts) {
    for (int32_t v = schema::kOldestReadable; v <= schema::kVersion; ++v)
        EXPECT_FALSE(schema::layouts(v).empty()) << v;
    EXPECT_TRUE(schema::layouts(0).empty());
    EXPECT_TRUE(schema::layouts(schema::kVersion + 1).empty());
    const schema::Layout &now = schema::layouts(schema::kVersion).front();
    EXPECT_TRUE(std::equal(now.tables.begin(), now.tables.end(), schema::tables().begin(),
                           schema::tables().end()));
    EXPECT_TRUE(now.symbols && now.notices && now.unsampled && now.counters && now.cpus &&
                now.off_cpu);
    EXPECT_EQ(schema::layouts(3).size(), 3u);
}

} // namespace
} // namespace storagetest
