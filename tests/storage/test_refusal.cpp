// SPDX-License-Identifier: MIT
// Files that are not good profiles: each is refused with a reason and
// nothing crashes (run under the asan preset too).  Broken files are made
// from a good one inside each test.
#include "tests/storage/helpers.h"

#include <sys/stat.h>

#include <fstream>

using namespace storagetest;

namespace {

struct Refusal : GoodProfileTest {
    // Page number (1-based) of a table's root, from the good file.
    size_t root_page(const char *table_query) { return std::stoul(query_text(good, table_query)); }
    // 1 KiB for a small profile, 4 KiB for a large one (Writer::finish).
    size_t page_size() { return std::stoul(query_text(good, "PRAGMA page_size")); }
};

// Opens a damaged file: refused with a reason that names the file, or
// accepted and then readable to the end or stopped with a reason.  Never
// a crash (the asan run checks the "never").
void open_and_read_without_crashing(const std::string &file) {
    std::string error;
    auto r = Reader::open(file, &error);
    if (!r) {
        EXPECT_EQ(error.rfind(file + ": ", 0), 0u) << error;
        EXPECT_GT(error.size(), file.size() + 2);
        return;
    }
    uint64_t frames = 0;
    bool read =
        r->for_each_sample([&](const StoredSample &s) { frames += s.frames.size(); }, &error);
    EXPECT_TRUE(read || !error.empty());
}

} // namespace

TEST_F(Refusal, GoodFileIsAccepted) {
    std::string error;
    auto r = Reader::open(good, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_TRUE(r->complete());
    EXPECT_EQ(r->sample_count(), 200u);
    EXPECT_TRUE(r->accounting_balanced());
}

TEST_F(Refusal, IncompleteFileIsAcceptedAndSaysSo) {
    const std::string file = path("incomplete.cpcprof");
    write_profile(file, 120, false);
    std::string error;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_FALSE(r->complete());
    EXPECT_EQ(r->sample_count(), 120u);
}

TEST_F(Refusal, MissingFile) {
    EXPECT_TRUE(refused(path("nothing.cpcprof"), "No such file"));
}

TEST_F(Refusal, Directory) {
    EXPECT_TRUE(refused(dir.string(), "not a regular file"));
}

TEST_F(Refusal, EmptyFile) {
    const std::string file = path("empty.cpcprof");
    std::ofstream(file).close(); // an empty file
    EXPECT_TRUE(refused(file, "empty file"));
}

TEST_F(Refusal, NotSQLite) {
    const std::string text = path("text.cpcprof");
    std::ofstream(text) << "# not a profile\nmain;a;b 10\n";
    EXPECT_TRUE(refused(text, "not an SQLite database"));
    const std::string perf = path("perf.cpcprof");
    std::ofstream(perf) << std::string("PERFILE2") + std::string(200, '\0');
    EXPECT_TRUE(refused(perf, "not an SQLite database"));
}

TEST_F(Refusal, AnotherSQLiteDatabase) {
    const std::string file = path("other.db");
    ASSERT_EQ(run_sql(file, "CREATE TABLE t(x)"), "");
    EXPECT_TRUE(refused(file, "not a cpcprof profile (application_id 0x00000000"));
}

TEST_F(Refusal, AnotherApplicationId) {
    const std::string file = copy("appid.cpcprof");
    ASSERT_EQ(run_sql(file, "PRAGMA application_id = 42"), "");
    EXPECT_TRUE(refused(file, "not a cpcprof profile (application_id 0x0000002a"));
}

TEST_F(Refusal, AnotherSchemaVersion) {
    const std::string newer = copy("v7.cpcprof");
    ASSERT_EQ(run_sql(newer, "PRAGMA user_version = 7"), "");
    EXPECT_TRUE(refused(newer, "profile format version 7; this cpcprof reads versions 1 to 6 "
                               "(the file was written by a newer cpcprof)"));
    const std::string zero = copy("v0.cpcprof");
    ASSERT_EQ(run_sql(zero, "PRAGMA user_version = 0"), "");
    EXPECT_TRUE(refused(zero, "profile format version 0; this cpcprof reads versions 1 to 6"));
    // Older versions are read, each held to the schema it was written
    // with: a version-6 file that calls itself version 1 is not one.
    const std::string older = copy("v1.cpcprof");
    ASSERT_EQ(run_sql(older, "PRAGMA user_version = 1"), "");
    EXPECT_TRUE(refused(older, "schema differs from format version 1: table 'accounting' is "
                               "defined differently"));
    // A version-6 file that calls itself version 3 is held to version 3's
    // schema: it has a table version 3 lacks.
    const std::string relabelled = copy("v3.cpcprof");
    ASSERT_EQ(run_sql(relabelled, "PRAGMA user_version = 3"), "");
    EXPECT_TRUE(refused(relabelled, "schema differs from format version 3: table 'off_cpu' is "
                                    "unexpected"));
    // ... one that calls itself version 4 has a table version 4 lacks ...
    const std::string v4 = copy("v4.cpcprof");
    ASSERT_EQ(run_sql(v4, "PRAGMA user_version = 4"), "");
    EXPECT_TRUE(refused(v4, "schema differs from format version 4: table 'off_cpu' is "
                            "unexpected"));
    // ... and one that calls itself version 5 has version 6's off-CPU time.
    const std::string v5 = copy("v5.cpcprof");
    ASSERT_EQ(run_sql(v5, "PRAGMA user_version = 5"), "");
    EXPECT_TRUE(refused(v5, "schema differs from format version 5: table 'off_cpu' is "
                            "unexpected"));
}

TEST_F(Refusal, TruncatedMidPage) {
    const std::string file = copy("cut.cpcprof");
    auto bytes = read_bytes(file);
    bytes.resize(bytes.size() / 2 + 100);
    write_bytes(file, bytes);
    EXPECT_TRUE(refused(file, "truncated"));
}

TEST_F(Refusal, TruncatedAtAPageBoundary) {
    const std::string file = copy("cut4k.cpcprof");
    auto bytes = read_bytes(file);
    ASSERT_GT(bytes.size(), 3u * page_size());
    bytes.resize(3 * page_size());
    write_bytes(file, bytes);
    EXPECT_TRUE(refused(file, "truncated"));
}

TEST_F(Refusal, FlippedBitsInATablePage) {
    const std::string file = copy("flip.cpcprof");
    size_t page = root_page("SELECT rootpage FROM sqlite_schema WHERE name = 'sample'");
    auto bytes = read_bytes(file);
    bytes[(page - 1) * page_size()] ^= 0x5a; // the b-tree page type
    write_bytes(file, bytes);
    EXPECT_TRUE(refused(file, "damaged (SQLite integrity_check:"));
}

TEST_F(Refusal, FlippedBitsInTheSchemaText) {
    const std::string file = copy("flipschema.cpcprof");
    auto bytes = read_bytes(file);
    const std::string needle = "time_ns INTEGER";
    auto at = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
    ASSERT_NE(at, bytes.end());
    at[3] ^= 0x04; // time_ns -> tima_ns
    write_bytes(file, bytes);
    EXPECT_TRUE(refused(file, "schema differs from format version 6: table 'sample' is "
                              "defined differently"));
}

TEST_F(Refusal, FlippedBitsInTheSchemaSyntax) {
    const std::string file = copy("flipsyntax.cpcprof");
    auto bytes = read_bytes(file);
    const std::string needle = "CREATE TABLE sample(";
    auto at = std::search(bytes.begin(), bytes.end(), needle.begin(), needle.end());
    ASSERT_NE(at, bytes.end());
    at[needle.size() - 1] ^= 0x01; // '(' -> ')'
    write_bytes(file, bytes);
    EXPECT_TRUE(refused(file, "malformed database schema"));
}

// Every header byte and a spread of bytes over the whole file, one at a time.
TEST_F(Refusal, FlippedBitsAnywhereNeverCrash) {
    const auto original = read_bytes(good);
    const std::string file = path("sweep.cpcprof");
    std::vector<size_t> offsets;
    for (size_t i = 0; i < 100; ++i)
        offsets.push_back(i);
    for (size_t i = 100; i < original.size(); i += 211)
        offsets.push_back(i);
    for (size_t at : offsets) {
        SCOPED_TRACE(at);
        auto bytes = original;
        bytes[at] ^= static_cast<char>(0xa5);
        write_bytes(file, bytes);
        open_and_read_without_crashing(file);
    }
}

TEST_F(Refusal, TriggerAdded) {
    const std::string file = copy("trigger.cpcprof");
    ASSERT_EQ(run_sql(file, "CREATE TRIGGER evil AFTER INSERT ON sample "
                            "BEGIN DELETE FROM accounting; END"),
              "");
    EXPECT_TRUE(refused(file, "schema differs from format version 6: trigger 'evil' is "
                              "unexpected"));
}

TEST_F(Refusal, ViewAdded) {
    const std::string file = copy("view.cpcprof");
    ASSERT_EQ(run_sql(file, "CREATE VIEW v AS SELECT * FROM sample"), "");
    EXPECT_TRUE(refused(file, "view 'v' is unexpected"));
}

TEST_F(Refusal, TableChanged) {
    const std::string file = copy("changed.cpcprof");
    ASSERT_EQ(run_sql(file, "ALTER TABLE thread ADD COLUMN extra"), "");
    EXPECT_TRUE(refused(file, "table 'thread' is defined differently"));
}

TEST_F(Refusal, TableMissing) {
    const std::string file = copy("missing.cpcprof");
    ASSERT_EQ(run_sql(file, "DROP TABLE accounting"), "");
    EXPECT_TRUE(refused(file, "table 'accounting' is missing"));
}

TEST_F(Refusal, IndexAdded) {
    const std::string file = copy("index.cpcprof");
    ASSERT_EQ(run_sql(file, "CREATE INDEX by_time ON sample(time_ns)"), "");
    EXPECT_TRUE(refused(file, "index 'by_time' is unexpected"));
}

TEST_F(Refusal, StackNodeWithALaterParent) {
    const std::string file = copy("cycle.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE stack_node SET parent = 4 WHERE id = 2"), "");
    EXPECT_TRUE(refused(file, "inconsistent stack table at node 2 (parent 4)"));
}

TEST_F(Refusal, StackNodeMissing) {
    const std::string file = copy("gap.cpcprof");
    ASSERT_EQ(run_sql(file, "DELETE FROM stack_node WHERE id = 2"), "");
    EXPECT_TRUE(refused(file, "inconsistent stack table at node 3"));
}

TEST_F(Refusal, MappingOfAMissingModule) {
    const std::string file = copy("nomodule.cpcprof");
    ASSERT_EQ(run_sql(file, "DELETE FROM module"), "");
    EXPECT_TRUE(refused(file, "mapping 1 refers to module 1, which is missing"));
}

// Row-level damage found while streaming: the samples before it are
// delivered, then the reason.
struct BadSample : Refusal {
    std::string read_error(const char *damage, uint64_t *visited) {
        const std::string file = copy("bad.cpcprof");
        EXPECT_EQ(run_sql(file, damage), "");
        std::string error;
        auto r = Reader::open(file, &error);
        EXPECT_TRUE(r) << error;
        if (!r)
            return error;
        *visited = 0;
        EXPECT_FALSE(r->for_each_sample([&](const StoredSample &) { ++*visited; }, &error));
        return error;
    }
};

TEST_F(BadSample, MissingStackNode) {
    uint64_t visited;
    EXPECT_EQ(read_error("UPDATE sample SET stack = 1000000 WHERE id = 5", &visited),
              "inconsistent: sample 5 refers to missing stack node 1000000");
    EXPECT_EQ(visited, 4u);
}

TEST_F(BadSample, MissingThread) {
    uint64_t visited;
    EXPECT_EQ(read_error("UPDATE sample SET thread = 99 WHERE id = 3", &visited),
              "inconsistent: sample 3 refers to missing thread 99");
}

TEST_F(BadSample, ANegativeProcessor) {
    uint64_t visited;
    EXPECT_EQ(read_error("UPDATE sample SET cpu = -7 WHERE id = 4", &visited),
              "inconsistent: sample 4 has cpu -7");
    EXPECT_EQ(visited, 3u);
}

TEST_F(BadSample, BadlyEncodedValues) {
    uint64_t visited;
    EXPECT_EQ(read_error("UPDATE sample SET more_values = x'80' WHERE id = 2", &visited),
              "inconsistent: sample 2 has badly encoded more_values");
}

// ---- symbol tables ----------------------------------------------------

struct SymbolRefusal : Refusal {
    void SetUp() override {
        Refusal::SetUp();
        symbolize_profile(good);
    }
};

TEST_F(SymbolRefusal, SymbolizedFileIsAccepted) {
    std::string error;
    auto r = Reader::open(good, &error);
    ASSERT_TRUE(r) << error;
    EXPECT_TRUE(r->symbolized());
    EXPECT_EQ(r->symbol_table().size(), 5u);
    EXPECT_EQ(integrity_check(good), "ok");
}

TEST_F(SymbolRefusal, TriggerOnTheSymbolTable) {
    const std::string file = copy("trigger.cpcprof");
    ASSERT_EQ(run_sql(file, "CREATE TRIGGER t BEFORE INSERT ON symbol BEGIN SELECT 1; END"), "");
    EXPECT_TRUE(refused(file, "schema differs from format version 6: trigger 't' is unexpected"));
}

TEST_F(SymbolRefusal, IndexOnTheStrings) {
    const std::string file = copy("index.cpcprof");
    ASSERT_EQ(run_sql(file, "CREATE UNIQUE INDEX by_name ON function_name(name)"), "");
    EXPECT_TRUE(refused(file, "index 'by_name' is unexpected"));
}

TEST_F(SymbolRefusal, SymbolTableChanged) {
    const std::string file = copy("changed.cpcprof");
    ASSERT_EQ(run_sql(file, "ALTER TABLE symbol ADD COLUMN column INTEGER"), "");
    EXPECT_TRUE(refused(file, "table 'symbol' is defined differently"));
}

TEST_F(SymbolRefusal, SymbolTableMissing) {
    const std::string file = copy("missing.cpcprof");
    ASSERT_EQ(run_sql(file, "DROP TABLE source_file"), "");
    EXPECT_TRUE(refused(file, "table 'source_file' is missing"));
}

TEST_F(SymbolRefusal, FrameOfAMissingFunctionName) {
    const std::string file = copy("nofunction.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE symbol SET function = 1000 WHERE module = 1 AND "
                            "file_offset = 4096 AND depth = 1"),
              "");
    EXPECT_TRUE(refused(file, "inconsistent symbol table at module 1 offset 4096 depth 1"));
}

TEST_F(SymbolRefusal, FrameOfAMissingSourceFile) {
    const std::string file = copy("nosource.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE symbol SET source = 0 WHERE depth = 0"), "");
    EXPECT_TRUE(refused(file, "inconsistent symbol table at module 1 offset 4096 depth 0"));
}

TEST_F(SymbolRefusal, FrameOfAMissingModule) {
    const std::string file = copy("nomodule.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE symbol SET module = 7 WHERE file_offset = 4352"), "");
    EXPECT_TRUE(refused(file, "inconsistent symbol table at module 7 offset 4352 depth 0"));
}

TEST_F(SymbolRefusal, DepthsWithAGap) {
    const std::string file = copy("gap.cpcprof");
    ASSERT_EQ(run_sql(file, "DELETE FROM symbol WHERE file_offset = 4608 AND depth = 0"), "");
    EXPECT_TRUE(refused(file, "inconsistent symbol table at module 1 offset 4608 depth 1"));
}

TEST_F(SymbolRefusal, NegativeLine) {
    const std::string file = copy("line.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE symbol SET line = -5 WHERE file_offset = 4096 AND depth = 1"),
              "");
    EXPECT_TRUE(refused(file, "inconsistent symbol table at module 1 offset 4096 depth 1"));
}

TEST_F(SymbolRefusal, StringIdsWithAGap) {
    const std::string file = copy("strgap.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE function_name SET id = 100 WHERE id = 3"), "");
    EXPECT_TRUE(refused(file, "inconsistent function name table at id 4"));
}

TEST_F(SymbolRefusal, ModuleNumberedZero) {
    const std::string file = copy("module0.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE module SET id = 0; UPDATE mapping SET module = 0; "
                            "UPDATE symbol SET module = 0"),
              "");
    EXPECT_TRUE(refused(file, "inconsistent: module id 0"));
}

// Two ids with the same text (written by someone else) are one function.
TEST_F(SymbolRefusal, DuplicateStringsAreMerged) {
    const std::string file = copy("dup.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE function_name SET name = 'same' WHERE id IN (2, 4)"), "");
    std::string error;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    const SymbolTable &t = r->symbol_table();
    uint32_t a = t.find({1, 0x1000}), b = t.find({1, 0x1100});
    ASSERT_NE(a, 0u);
    ASSERT_NE(b, 0u);
    EXPECT_EQ(t.frames(a)[1].function, t.frames(b)[1].function);
    EXPECT_EQ(t.functions()[t.frames(b)[1].function], "same");
}

TEST_F(SymbolRefusal, FlippedBitsAnywhereNeverCrash) {
    const auto original = read_bytes(good);
    const std::string file = path("sweep.cpcprof");
    // ~120 places, none a multiple of the page size apart.
    for (size_t at = 100; at < original.size(); at += original.size() / 120 | 1) {
        SCOPED_TRACE(at);
        auto bytes = original;
        bytes[at] ^= static_cast<char>(0x5a);
        write_bytes(file, bytes);
        open_and_read_without_crashing(file);
        std::string error;
        if (auto w = SymbolWriter::open(file, &error)) {
            w->addresses(); // may fail, must not crash
            w->finish(&error);
        }
    }
}

// Damage that quick_check does not see: an index that disagrees with its
// table (a row changed behind the index's back).  PRAGMA integrity_check
// finds it, so Reader::open refuses it as `cpcprof check` does.
TEST_F(Refusal, IndexThatDisagreesWithItsTable) {
    const std::string file = copy("index.cpcprof");
    std::string rootpage =
        query_text(file, "SELECT rootpage FROM sqlite_schema WHERE name = 'stack_node_child'");
    std::string sql =
        query_text(file, "SELECT sql FROM sqlite_schema WHERE name = 'stack_node_child'");
    ASSERT_FALSE(rootpage.empty());
    ASSERT_EQ(run_sql(file, "PRAGMA writable_schema = ON; "
                            "DELETE FROM sqlite_schema WHERE name = 'stack_node_child'"),
              "");
    ASSERT_EQ(run_sql(file, "UPDATE stack_node SET address = address + 1 WHERE id = 3"), "");
    std::string restore = "PRAGMA writable_schema = ON; INSERT INTO sqlite_schema VALUES "
                          "('index', 'stack_node_child', 'stack_node', " +
                          rootpage + ", '" + sql + "')";
    ASSERT_EQ(run_sql(file, restore.c_str()), "");
    ASSERT_EQ(query_text(file, "PRAGMA quick_check"), "ok"); // invisible to quick_check
    ASSERT_NE(integrity_check(file), "ok");
    EXPECT_TRUE(refused(file, "damaged (SQLite integrity_check:"));
}

// A sample with another number of values than the run has events: the
// readers stop at it with check's words.
TEST_F(Refusal, SampleWithTheWrongNumberOfValues) {
    const std::string file = copy("values.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE sample SET more_values = NULL WHERE id = 7"), "");
    std::string error;
    auto r = Reader::open(file, &error);
    ASSERT_TRUE(r) << error;
    uint64_t n = 0;
    EXPECT_FALSE(r->for_each_sample([&](const StoredSample &) { ++n; }, &error));
    EXPECT_EQ(error, "inconsistent: sample 7 has 1 value, the run has 2 events");
    EXPECT_EQ(n, 6u);
    EXPECT_FALSE(r->samples_per_process()); // no whole pass
}
