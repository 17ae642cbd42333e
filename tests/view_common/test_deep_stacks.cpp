// SPDX-License-Identifier: MIT
// Issue 12, point 5: every reading command walks call trees without
// recursing per frame.  A profile whose one stack is 30,000 frames deep
// (f29999 called by ... called by f0, or one function recursing 30,000
// times) goes through report (table, --callers, --callees; text, CSV,
// JSON), diff (table and flame graph), flamegraph (SVG, HTML, inverted),
// export (folded, pprof, speedscope) and check, each run with a 1 MiB
// stack (RLIMIT_STACK): a recursion per frame needs far more.
#include "tests/view_common/hostile_profiles.h"
#include "tests/view_common/limited_run.h"
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <sstream>

namespace cpcprof::test {
namespace {

constexpr uint32_t kDepth = 30'000;
constexpr Limits kSmallStack{1024, 0, 120};

class DeepStacks : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = new TempDir();
        write_deep_profile(dir_->file("deep.cpcprof"), kDepth, 1, false);
        write_deep_profile(dir_->file("recursive.cpcprof"), kDepth, 1, true);
    }
    static void TearDownTestSuite() {
        delete dir_;
        dir_ = nullptr;
    }
    static std::string deep() { return dir_->file("deep.cpcprof"); }
    static std::string recursive() { return dir_->file("recursive.cpcprof"); }

    // Runs with the small stack; the command must succeed.
    static LimitedRun ok(const std::vector<std::string> &args) {
        LimitedRun r = run_limited(*dir_, args, kSmallStack);
        std::string cmd;
        for (const auto &a : args)
            cmd += " " + a;
        EXPECT_EQ(r.status, 0) << "cpcprof" << cmd << "\n" << r.err.substr(0, 2000);
        return r;
    }
    static TempDir *dir_;
};
TempDir *DeepStacks::dir_ = nullptr;

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

TEST_F(DeepStacks, FileIsSmall) {
    // What a deep stack costs in the file: the trie, one row per frame.
    std::string bytes = read_file(deep());
    EXPECT_GT(bytes.size(), 100'000u);
    EXPECT_LT(bytes.size(), 4'000'000u);
}

TEST_F(DeepStacks, CallersTextReachesTheRoot) {
    LimitedRun r = ok({"report", deep(), "--callers", "f29999"});
    // f29999 at depth 1, ..., f0 at depth 30,000: indentation stops at 40
    // levels, deeper lines carry their depth.
    EXPECT_EQ(count(r.out, " deep\n"), size_t(kDepth)) << r.out.substr(0, 500);
    EXPECT_NE(r.out.find("[30000] f0 "), std::string::npos);
    EXPECT_NE(r.out.find("[42] f29958 "), std::string::npos);
    for (const std::string &line : split_lines(r.out))
        EXPECT_LT(line.size(), 400u) << "indentation grows with depth";
}

TEST_F(DeepStacks, CalleesCsvHasEveryLevel) {
    LimitedRun r = ok({"report", deep(), "--callees", "f0", "--format", "csv"});
    std::vector<std::string> lines = split_lines(r.out);
    ASSERT_EQ(lines.size(), size_t(kDepth) + 1); // the header, then one row per node
    EXPECT_EQ(lines.back().rfind("30000,f29999,", 0), 0u) << lines.back();
}

TEST_F(DeepStacks, CallersJsonIsValidAndNested) {
    LimitedRun r = ok({"report", deep(), "--callers", "f29999", "--format", "json"});
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out.substr(0, 300);
    EXPECT_EQ(count(r.out, "{\"function\": \"f"), size_t(kDepth));
    EXPECT_EQ(count(r.out, "\"children\": [\n"), size_t(kDepth) - 1); // a chain
    for (const std::string &line : split_lines(r.out))
        ASSERT_LT(line.size(), 2000u) << "indentation grows with depth";
}

TEST_F(DeepStacks, RecursionInEveryTreeFormat) {
    for (const char *tree : {"--callers", "--callees"})
        for (const char *format : {"text", "csv", "json"}) {
            LimitedRun r = ok({"report", recursive(), tree, "recurse", "--format", format});
            const std::string node = format == std::string("text")  ? " deep\n"
                                     : format == std::string("csv") ? ",recurse,"
                                                                    : "{\"function\": ";
            EXPECT_EQ(count(r.out, node), size_t(kDepth)) << tree << " " << format;
        }
}

TEST_F(DeepStacks, TableAndDiff) {
    for (const std::string &f : {deep(), recursive()}) {
        LimitedRun table = ok({"report", f, "--top", "0", "--format", "csv"});
        EXPECT_GE(split_lines(table.out).size(), 2u);
        LimitedRun diff = ok({"diff", f, f, "--format", "json"});
        EXPECT_TRUE(nlohmann::json::accept(diff.out)) << diff.out.substr(0, 300);
    }
    // The differential flame graph draws every level of the chain.
    ok({"diff", deep(), deep(), "-o", dir_->file("diff.html")});
    std::string page = read_file(dir_->file("diff.html"));
    EXPECT_EQ(count(page, "data-n=\"f"), size_t(kDepth));
}

TEST_F(DeepStacks, FlameGraphs) {
    for (const char *out : {"deep.svg", "deep.html"}) {
        ok({"flamegraph", deep(), "-o", dir_->file(out)});
        std::string page = read_file(dir_->file(out));
        EXPECT_NE(page.find("f29999"), std::string::npos) << out;
    }
    ok({"flamegraph", deep(), "--inverted", "-o", dir_->file("inverted.svg")});
    EXPECT_NE(read_file(dir_->file("inverted.svg")).find("f0"), std::string::npos);
    ok({"flamegraph", recursive(), "-o", dir_->file("recursive.html")});
}

TEST_F(DeepStacks, Exports) {
    LimitedRun folded = ok({"export", deep(), "--format", "folded"});
    ASSERT_EQ(split_lines(folded.out).size(), 1u);
    EXPECT_EQ(count(folded.out, ";"), size_t(kDepth) - 1);
    EXPECT_EQ(folded.out.rfind("f0;f1;f2;", 0), 0u);
    ok({"export", deep(), "--format", "pprof", "-o", dir_->file("deep.pb.gz")});
    EXPECT_GT(read_file(dir_->file("deep.pb.gz")).size(), 1000u);
    LimitedRun ss = ok({"export", recursive(), "--format", "speedscope"});
    EXPECT_TRUE(nlohmann::json::accept(ss.out));
}

TEST_F(DeepStacks, Check) {
    for (const std::string &f : {deep(), recursive()}) {
        LimitedRun r = ok({"check", f});
        EXPECT_NE(r.out.find(": ok: 1 sample"), std::string::npos) << r.out;
    }
}

} // namespace
} // namespace cpcprof::test
