// SPDX-License-Identifier: MIT
// cpcprof annotate on the known profile (tests/storage/helpers.h), whose
// sources /src/a.c and /src/m.h are recreated under a temporary directory
// with one recognisable text per line ("a.c line N"), and on cpcprof-demo.
//
// Known per-line costs: recurse a.c:30 self 4, a.c:31 total 4; compute
// a.c:20 total 6 (12 faults, square inlined there); square m.h:3 self 6
// (12 faults); main a.c:10 total 9, a.c:11 total 1 (5 faults).
#include "tests/report/report_test_util.h"
#include "tests/view_common/view_harness.h"

#include "storage/reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace cpcprof::test {
namespace {

std::string numbered(const char *name, int lines) {
    std::string text;
    for (int i = 1; i <= lines; ++i)
        text += std::string(name) + " line " + std::to_string(i) + "\n";
    return text;
}

// The cells of the output line whose last cell is last; empty if none.
std::vector<std::string> row_ending(const std::string &out, const std::string &last) {
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> cells = split_cells(line);
        if (!cells.empty() && cells.back() == last)
            return cells;
    }
    return {};
}

struct AnnotateTest : ::testing::Test {
    TempDir dir;
    std::string known = dir.file("known.cpcprof");
    std::string sources = dir.file("checkout");
    void SetUp() override {
        storagetest::write_known_profile(known);
        write_file(sources + "/src/a.c", numbered("a.c", 40));
        write_file(sources + "/src/m.h", numbered("m.h", 5));
    }
    RunResult annotate(std::vector<std::string> args) {
        args.insert(args.begin(), {"annotate", known});
        return cpcprof(dir, args);
    }
};

// Sampled rows: self%, samples, total-samples, self/total per event
// (cpu-clock, page-faults), ">", line, source.
TEST_F(AnnotateTest, CountsStandBesideTheirLines) {
    RunResult r = annotate({"recurse", "--source-dir", sources});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> l30 = row_ending(r.out, "a.c line 30");
    ASSERT_EQ(l30.size(), 10u) << r.out;
    EXPECT_EQ(l30[1], "4");       // samples (self)
    EXPECT_EQ(l30[2], "4");       // total samples
    EXPECT_EQ(l30[3], "4000000"); // self cpu-clock
    EXPECT_EQ(l30[5], "0");       // self page-faults
    EXPECT_EQ(l30[7], ">");
    EXPECT_EQ(l30[8], "30");
    std::vector<std::string> l31 = row_ending(r.out, "a.c line 31");
    ASSERT_EQ(l31.size(), 10u) << r.out;
    EXPECT_EQ(l31[1], "0");
    EXPECT_EQ(l31[2], "4");
    // Context: three lines each side, without counts or mark.
    EXPECT_EQ(row_ending(r.out, "a.c line 27"), (std::vector<std::string>{"27", "a.c line 27"}));
    EXPECT_EQ(row_ending(r.out, "a.c line 34").size(), 2u);
    EXPECT_TRUE(row_ending(r.out, "a.c line 26").empty()) << r.out;
    EXPECT_TRUE(row_ending(r.out, "a.c line 35").empty()) << r.out;
    EXPECT_NE(r.out.find(sources + "/src/a.c"), std::string::npos) << r.out;
}

TEST_F(AnnotateTest, InlinedFunctionAndItsCaller) {
    RunResult r = annotate({"square", "--source-dir", sources});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> l3 = row_ending(r.out, "m.h line 3");
    ASSERT_EQ(l3.size(), 10u) << r.out;
    EXPECT_EQ(l3[1], "6");
    EXPECT_EQ(l3[5], "12"); // self page-faults

    r = annotate({"compute", "--source-dir", sources});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> l20 = row_ending(r.out, "a.c line 20");
    ASSERT_EQ(l20.size(), 10u) << r.out;
    EXPECT_EQ(l20[1], "0");  // nothing executes at the call itself
    EXPECT_EQ(l20[2], "6");  // but the inlined square below it does
    EXPECT_EQ(l20[6], "12"); // total page-faults
}

TEST_F(AnnotateTest, SourceDirDropsLeadingDirectories) {
    std::string flat = dir.file("flat");
    write_file(flat + "/a.c", numbered("flat a.c", 40));
    RunResult r = annotate({"main", "--source-dir", dir.file("empty"), "--source-dir", flat});
    ASSERT_EQ(r.status, 0) << r.err;
    std::vector<std::string> l10 = row_ending(r.out, "flat a.c line 10");
    ASSERT_EQ(l10.size(), 10u) << r.out;
    EXPECT_EQ(l10[2], "9");
    std::vector<std::string> l11 = row_ending(r.out, "flat a.c line 11");
    ASSERT_EQ(l11.size(), 10u) << r.out;
    EXPECT_EQ(l11[6], "5"); // total page-faults: libx's sample
}

TEST_F(AnnotateTest, MissingSourceStillShowsTheCounts) {
    RunResult r = annotate({"recurse", "--source-dir", dir.file("nowhere")});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("/src/a.c"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not found"), std::string::npos) << r.err;
    std::vector<std::string> l30 = row_ending(r.out, "30");
    ASSERT_EQ(l30.size(), 9u) << r.out;
    EXPECT_EQ(l30[1], "4");
    EXPECT_EQ(row_ending(r.out, "31").at(2), "4");
}

TEST_F(AnnotateTest, SeveralMatchesAreEachAnnotated) {
    // "e": compute, square, recurse.
    RunResult r = annotate({"e", "--source-dir", sources});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_with(r.out, "== ").size(), 3u) << r.out;
    EXPECT_FALSE(row_ending(r.out, "m.h line 3").empty());
    EXPECT_FALSE(row_ending(r.out, "a.c line 30").empty());
}

TEST_F(AnnotateTest, EventOptionKeepsOneEvent) {
    RunResult r = annotate({"square", "--event", "page-faults", "--source-dir", sources});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("self:page-faults"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("self:cpu-clock"), std::string::npos) << r.out;
    std::vector<std::string> l3 = row_ending(r.out, "m.h line 3");
    ASSERT_EQ(l3.size(), 8u) << r.out;
    EXPECT_NEAR(percent_value(l3[0]), 100.0 * 12 / 17, 0.006);
}

TEST_F(AnnotateTest, ErrorsAndFunctionsWithoutLines) {
    RunResult r = annotate({"nosuchfunction"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("nosuchfunction"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());

    r = annotate({"libx.so+0x500"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.err.find("no line information"), std::string::npos) << r.err;

    r = cpcprof(dir, {"annotate"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("FUNC"), std::string::npos) << r.err;
    r = annotate({"main", "--source-dir"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--source-dir"), std::string::npos) << r.err;
    r = annotate({"main", "--event", "bogus"});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("bogus"), std::string::npos) << r.err;
    r = cpcprof(dir, {"annotate", dir.file("missing.cpcprof"), "main"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("missing.cpcprof"), std::string::npos) << r.err;
}

TEST(AnnotateDemo, HotLinesLieInsideTheFunction) {
    SKIP_WITHOUT_DEMO_RECORDING();
    const std::string &file = demo_profile();
    ASSERT_FALSE(file.empty());
    std::string error;
    auto reader = storage::Reader::open(file, &error);
    ASSERT_TRUE(reader) << error;
    if (!reader->symbolized())
        GTEST_SKIP() << "the demo recording was not symbolized (record did not run the "
                        "symbolizer), so there are no lines to annotate";
    TempDir dir;
    RunResult r = cpcprof(dir, {"annotate", file, "walk_list"});
    ASSERT_EQ(r.status, 0) << r.err;
    // Every line with samples holds walk_list's code: between its first
    // line and the closing brace.
    std::istringstream in(r.out);
    std::string line;
    bool inside = false, sampled = false;
    while (std::getline(in, line)) {
        if (line.find("void walk_list(") != std::string::npos)
            inside = true;
        std::vector<std::string> cells = split_cells(line);
        if (cells.size() >= 3 && cells[cells.size() - 3] == ">") {
            EXPECT_TRUE(inside) << line;
            sampled = true;
        }
        if (!cells.empty() && cells.back() == "}")
            inside = false;
    }
    EXPECT_TRUE(sampled) << r.out;

    r = cpcprof(dir, {"annotate", file, "a"}); // matches many functions
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("exact name"), std::string::npos) << r.err;
}

} // namespace
} // namespace cpcprof::test
