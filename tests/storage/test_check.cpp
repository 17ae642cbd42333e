// SPDX-License-Identifier: MIT
// `cpcprof check`: sound files, incomplete ones, broken accounting, bad
// samples, damaged files, and the exit codes.
#include "profiler/check/check.h"
#include "tests/storage/helpers.h"

#include "profiler/analysis/accounting_text.h"

using namespace storagetest;
using cpcprof::check::check_file;
using cpcprof::check::check_main;
using cpcprof::check::FileReport;

namespace {

struct Check : GoodProfileTest {
    // check_main's exit status, its stdout in *out.
    int run(const std::vector<std::string> &args, std::string *out) {
        ::testing::internal::CaptureStdout();
        int status = check_main(args);
        *out = ::testing::internal::GetCapturedStdout();
        return status;
    }
};

std::string lines(const FileReport &r) {
    std::string s;
    for (const std::string &p : r.problems)
        s += p + "\n";
    return s;
}

} // namespace

TEST_F(Check, GoodFile) {
    FileReport r = check_file(good);
    EXPECT_TRUE(r.problems.empty()) << lines(r);
    // The fixture's accounting has 3 overflows dropped: check says so.
    // Every 7th numbered sample (i % 7 == 6) is cut short: 28 of 200, so
    // 172 complete stacks, 86.0 %.
    EXPECT_EQ(r.summary, good + ": ok: 200 samples, 2 processes, 3 threads, recording finished, "
                                "not symbolized, 3 of 203 overflows dropped, complete stacks: "
                                "86.0 %, counters posix-timer, format version 6");
    std::string out;
    EXPECT_EQ(run({good}, &out), 0);
    EXPECT_EQ(out, r.summary + "\n");
}

// Profiles of older versions (data/README.md) are sound, and check names
// their version and that they are read by migration.
TEST_F(Check, OlderVersionsSayTheirVersion) {
    const std::pair<const char *, const char *> files[] = {
        {"format-1.cpcprof", "not symbolized, complete stacks: "},
        {"format-2.cpcprof", "symbolized, complete stacks: "},
        {"format-3-early-notice.cpcprof", "symbolized, complete stacks: "},
        {"format-3-early-unsampled.cpcprof", "symbolized, complete stacks: "},
        {"format-3.cpcprof", "symbolized, complete stacks: "},
        {"format-4.cpcprof", "symbolized, complete stacks: "},
        {"format-5.cpcprof", "symbolized, complete stacks: "},
    };
    const std::string data = STORAGE_TEST_DATA;
    for (const auto &[name, symbolized] : files) {
        const std::string file = data + "/" + name;
        const std::string version = query_text(file, "PRAGMA user_version");
        FileReport r = check_file(file);
        EXPECT_TRUE(r.problems.empty()) << lines(r);
        std::string form;
        if (std::string(name) == "format-3-early-notice.cpcprof")
            form = "an early form with notices and without accounting.unsampled_ns; ";
        if (std::string(name) == "format-3-early-unsampled.cpcprof")
            form = "an early form with accounting.unsampled_ns and without notices; ";
        const std::string samples = query_text(file, "SELECT count(*) FROM sample");
        std::string start = file;
        start += ": ok: ";
        start += samples;
        start += " samples, 1 process, 2 threads, recording finished, ";
        start += symbolized;
        EXPECT_TRUE(r.summary.starts_with(start)) << r.summary;
        std::string end = ", format version ";
        end += version;
        end += " (";
        end += form;
        end += "read by migration; this cpcprof writes 6)";
        EXPECT_TRUE(r.summary.ends_with(end)) << r.summary;
    }
}

TEST_F(Check, SymbolizedFile) {
    symbolize_profile(good);
    FileReport r = check_file(good);
    EXPECT_TRUE(r.problems.empty()) << lines(r);
    EXPECT_EQ(r.summary, good + ": ok: 200 samples, 2 processes, 3 threads, recording finished, "
                                "symbolized, 3 of 203 overflows dropped, complete stacks: 86.0 %, "
                                "counters posix-timer, format version 6");
}

TEST_F(Check, IncompleteFileIsSoundAndSaysSo) {
    const std::string file = path("killed.cpcprof");
    write_profile(file, 1, false);
    FileReport r = check_file(file);
    EXPECT_TRUE(r.problems.empty()) << lines(r);
    EXPECT_EQ(r.summary, file + ": ok: 1 sample, 2 processes, 1 thread, recording unfinished, "
                                "not symbolized, 3 of 4 overflows dropped, complete stacks: "
                                "100.0 %, counters posix-timer, format version 6");
    std::string out;
    EXPECT_EQ(run({file}, &out), 0);
}

// The share of complete stacks is read from the samples' flags: mark
// them all complete, or all cut, and the ok line follows.
TEST_F(Check, CompleteStacksFollowTheSamples) {
    const std::string all = copy("all.cpcprof"), none = copy("none.cpcprof");
    ASSERT_EQ(run_sql(all, "UPDATE sample SET complete = 1"), "");
    ASSERT_EQ(run_sql(none, "UPDATE sample SET complete = 0"), "");
    EXPECT_TRUE(check_file(all).summary.ends_with(
        ", complete stacks: 100.0 %, counters posix-timer, format version 6"))
        << check_file(all).summary;
    EXPECT_TRUE(check_file(none).summary.ends_with(
        ", complete stacks: 0.0 %, counters posix-timer, format version 6"))
        << check_file(none).summary;
    // PCs only: no stack was taken, so none is called cut.
    ASSERT_EQ(run_sql(all, "UPDATE run SET call_graph = 'none'"), "");
    EXPECT_TRUE(check_file(all).summary.find(
                    ", complete stacks: none taken (--call-graph none),") != std::string::npos)
        << check_file(all).summary;
}

TEST(CompleteStacksText, RoundsDownAndSaysWhenNoneWereTaken) {
    using cpcprof::analysis::complete_stacks_text;
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(996, 1000, "dwarf"),
              "complete stacks: 99.6 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(9999, 10000, "dwarf"),
              "complete stacks: 99.9 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(5, 5, "fp"), "complete stacks: 100.0 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(1, 3, "fp"), "complete stacks: 33.3 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(0, 7, "dwarf"), "complete stacks: 0.0 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(UINT64_MAX - 1, UINT64_MAX, "dwarf"),
              "complete stacks: 99.9 %");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(0, 0, "dwarf"), "");
    EXPECT_EQ(cpcprof::analysis::complete_stacks_text(0, 9, "none"),
              "complete stacks: none taken (--call-graph none)");
}

TEST_F(Check, UnbalancedAccounting) {
    const std::string file = copy("unbalanced.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE accounting SET dropped = dropped + 2 WHERE pid = 100"), "");
    FileReport r = check_file(file);
    // pid 100: 134 samples and 3 dropped; pid 200: 66 samples.
    EXPECT_EQ(lines(r), file +
                            ": accounting of process 100 does not balance: taken 137 != "
                            "stored 134 + dropped 5\n" +
                            file +
                            ": accounting does not balance in total: taken 203 != "
                            "stored 200 + dropped 5\n");
    EXPECT_TRUE(r.summary.empty());
    std::string out;
    EXPECT_EQ(run({file}, &out), 1);
    EXPECT_EQ(out, lines(r));
}

TEST_F(Check, SamplesMissingFromTheFile) {
    const std::string file = copy("lost.cpcprof");
    ASSERT_EQ(run_sql(file, "DELETE FROM sample WHERE id IN (3, 6)"), ""); // two of pid 200's
    FileReport r = check_file(file);
    EXPECT_EQ(lines(r),
              file + ": process 200 has 64 samples in the file, its accounting says 66 stored\n");
}

TEST_F(Check, EverySampleReferenceIsChecked) {
    const std::string file = copy("refs.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE sample SET stack = 99999 WHERE id <= 25; "
                            "UPDATE sample SET thread = 77 WHERE id = 30; "
                            "UPDATE sample SET more_values = NULL WHERE id IN (40, 41, 42)"),
              "");
    FileReport r = check_file(file);
    ASSERT_EQ(r.problems.size(), 22u) << lines(r);
    EXPECT_EQ(r.problems[0], file + ": inconsistent: sample 1 refers to missing stack node 99999");
    EXPECT_EQ(r.problems[19],
              file + ": inconsistent: sample 20 refers to missing stack node 99999");
    EXPECT_EQ(r.problems[20], file + ": ... and 6 more inconsistent samples");
    EXPECT_EQ(r.problems[21], file + ": 3 samples have 1 value, the run has 2 events");
}

TEST_F(Check, DamagedFile) {
    const std::string file = copy("flip.cpcprof");
    size_t page =
        std::stoul(query_text(good, "SELECT rootpage FROM sqlite_schema WHERE name = 'sample'"));
    auto bytes = read_bytes(file);
    bytes[(page - 1) * std::stoul(query_text(good, "PRAGMA page_size"))] ^= 0x5a;
    write_bytes(file, bytes);
    FileReport r = check_file(file);
    ASSERT_EQ(r.problems.size(), 1u);
    EXPECT_EQ(r.problems[0].rfind(file + ": damaged (SQLite integrity_check:", 0), 0u)
        << r.problems[0];
    std::string out;
    EXPECT_EQ(run({file}, &out), 1);
}

TEST_F(Check, DamagedSymbolTable) {
    symbolize_profile(good);
    const std::string file = copy("symbols.cpcprof");
    ASSERT_EQ(run_sql(file, "UPDATE symbol SET function = 999 WHERE depth = 1"), "");
    FileReport r = check_file(file);
    EXPECT_EQ(lines(r), file + ": inconsistent symbol table at module 1 offset 4096 depth 1\n");
}

TEST_F(Check, NotAProfile) {
    const std::string text = path("notes.txt");
    write_bytes(text, {'h', 'i', '\n'});
    std::string out;
    EXPECT_EQ(run({text}, &out), 1);
    EXPECT_EQ(out, text + ": not an SQLite database, so not a cpcprof profile\n");
    EXPECT_EQ(run({path("missing.cpcprof")}, &out), 1);
    EXPECT_EQ(out, path("missing.cpcprof") + ": No such file or directory\n");
}

TEST_F(Check, SeveralFilesOneBad) {
    const std::string bad = copy("bad.cpcprof");
    ASSERT_EQ(run_sql(bad, "UPDATE accounting SET taken = 0"), "");
    std::string out;
    EXPECT_EQ(run({good, bad}, &out), 1);
    EXPECT_EQ(out.rfind(good + ": ok: ", 0), 0u) << out;
    EXPECT_NE(out.find(bad + ": accounting of process 100 does not balance"), std::string::npos);
}

TEST_F(Check, UsageErrors) {
    std::string out;
    EXPECT_EQ(run({}, &out), 2);
    EXPECT_EQ(out, "");
    EXPECT_EQ(run({"--frobnicate", good}, &out), 2);
    EXPECT_EQ(out, "");
    EXPECT_EQ(run({"--help"}, &out), 0);
    EXPECT_EQ(out.rfind("usage: cpcprof check FILE...", 0), 0u);
    // After --, a name that starts with '-' is a file.
    EXPECT_EQ(run({"--", "-odd.cpcprof"}, &out), 1);
    EXPECT_EQ(out, "-odd.cpcprof: No such file or directory\n");
}
