// SPDX-License-Identifier: MIT
// Every JSON and protobuf string the viewing commands write is valid
// UTF-8, whatever bytes the profile holds: a program run with the argument
// "caf\xe9" (Latin-1), a function name with a flipped bit.  Bytes that are
// not UTF-8 become U+FFFD.  Outputs are parsed by nlohmann::json (strict:
// it refuses ill-formed UTF-8), pprof's strings are decoded by protoc and
// checked the same way.  Also the shared repair function alone
// (profiler/view_common/utf8_text.h).
#include "profiler/analysis/utf8_text.h"
#include "tests/view_common/pprof_text.h"
#include "tests/view_common/view_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cpcprof::test {
namespace {

using nlohmann::json;
using storagetest::run_sql;
using storagetest::write_known_profile;

const std::string kFFFD = "\xEF\xBF\xBD";

// True when s is well-formed UTF-8, judged by nlohmann::json, not by the
// code under test: dump() throws type_error 316 on ill-formed UTF-8.
bool is_utf8(const std::string &s) {
    try {
        (void)json(s).dump();
        return true;
    } catch (const json::type_error &) {
        return false;
    }
}

// Strict parse; a failed assertion names the parser's complaint.
::testing::AssertionResult parses(const std::string &text, json *doc) {
    try {
        *doc = json::parse(text);
        return ::testing::AssertionSuccess();
    } catch (const json::exception &e) {
        return ::testing::AssertionFailure() << e.what();
    }
}

TEST(Utf8Text, InvalidBytesBecomeReplacementCharacters) {
    EXPECT_EQ(cpcprof::analysis::valid_utf8("caf\xe9"), "caf" + kFFFD);
    EXPECT_EQ(cpcprof::analysis::valid_utf8("caf\xc3\xa9"), "caf\xc3\xa9"); // valid: unchanged
    EXPECT_EQ(cpcprof::analysis::valid_utf8("\xc0\xaf"), kFFFD + kFFFD);    // overlong '/'
    EXPECT_EQ(cpcprof::analysis::valid_utf8("\xed\xa0\x80"), kFFFD + kFFFD + kFFFD); // a surrogate
    EXPECT_EQ(cpcprof::analysis::valid_utf8("\xf4\x90\x80\x80"), kFFFD + kFFFD + kFFFD + kFFFD);
    EXPECT_EQ(cpcprof::analysis::valid_utf8("a\xe2\x82"), "a" + kFFFD + kFFFD); // cut short
    EXPECT_EQ(cpcprof::analysis::valid_utf8("\xf0\x9f\x94\xa5"), "\xf0\x9f\x94\xa5");
    EXPECT_EQ(cpcprof::analysis::valid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(Utf8Text, JsonStringsAreEscapedAndValid) {
    EXPECT_EQ(cpcprof::analysis::json_string("q\"\\\n\x01"), "\"q\\\"\\\\\\n\\u0001\"");
    EXPECT_EQ(cpcprof::analysis::json_string("</script>", cpcprof::analysis::JsonFlavor::script),
              "\"\\u003c/script\\u003e\"");
    EXPECT_EQ(
        cpcprof::analysis::json_string("a\xe2\x80\xa8", cpcprof::analysis::JsonFlavor::script),
        "\"a\\u2028\"");
    for (int b = 0; b < 256; ++b) {
        std::string s = "x" + std::string(1, char(b)) + "\xe9\xff";
        json doc;
        ASSERT_TRUE(parses(cpcprof::analysis::json_string(s), &doc)) << "byte " << b;
        ASSERT_TRUE(
            parses(cpcprof::analysis::json_string(s, cpcprof::analysis::JsonFlavor::script), &doc))
            << "byte " << b;
    }
}

// The known profile with bytes that are not UTF-8 where a profile holds
// text: the command's argument "caf\xe9", "compute" with bit 7 of its 'p'
// flipped (0xf0 starts a 4-byte sequence that "ute" does not continue), a
// thread name and a source path in Latin-1.
struct Utf8Test : ::testing::Test {
    TempDir dir;
    std::string file = dir.file("latin1.cpcprof");

    void SetUp() override {
        write_known_profile(file);
        for (const char *sql : {
                 "UPDATE command_arg SET arg = CAST(X'636166e9' AS TEXT) WHERE pos = "
                 "(SELECT max(pos) FROM command_arg)",
                 "UPDATE function_name SET name = CAST(X'636f6df0757465' AS TEXT) "
                 "WHERE name = 'compute'",
                 "UPDATE thread SET name = CAST(X'77f6726b6572' AS TEXT) WHERE name = 'worker'",
                 "UPDATE source_file SET path = CAST(X'2f7372632fe12e63' AS TEXT) "
                 "WHERE path = '/src/a.c'",
             })
            ASSERT_EQ(run_sql(file, sql), "") << sql;
        ASSERT_FALSE(
            is_utf8(storagetest::query_text(file, "SELECT group_concat(name) FROM function_name")));
    }

    // cpcprof ARGS must exit 0; its stdout.
    std::string run(const std::vector<std::string> &args) {
        RunResult r = cpcprof(dir, args);
        EXPECT_EQ(r.status, 0) << r.err;
        return r.out;
    }
};

TEST_F(Utf8Test, ReportJsonParses) {
    for (const char *by : {"function", "line", "module", "thread"}) {
        json doc;
        ASSERT_TRUE(parses(run({"report", file, "--format", "json", "--by", by}), &doc)) << by;
        std::string text = doc.dump();
        if (std::string(by) == "function") {
            EXPECT_NE(text.find("com" + kFFFD + "ute"), std::string::npos) << text;
            EXPECT_NE(text.find("caf" + kFFFD), std::string::npos) << text;
        }
        if (std::string(by) == "thread") {
            EXPECT_NE(text.find("w" + kFFFD + "rker"), std::string::npos) << text;
        }
    }
    json doc;
    for (const char *tree : {"--callers", "--callees"})
        EXPECT_TRUE(parses(run({"report", file, "--format", "json", tree, "main"}), &doc)) << tree;
}

TEST_F(Utf8Test, DiffJsonParses) {
    json doc;
    ASSERT_TRUE(parses(run({"diff", file, file, "--format", "json"}), &doc));
    EXPECT_NE(doc.dump().find("com" + kFFFD + "ute"), std::string::npos);
}

TEST_F(Utf8Test, SpeedscopeParses) {
    json doc;
    ASSERT_TRUE(parses(run({"export", file, "--format", "speedscope", "-o", "-"}), &doc));
    EXPECT_NE(doc.dump().find("com" + kFFFD + "ute"), std::string::npos);
}

TEST_F(Utf8Test, FlamegraphHtmlIsUtf8) {
    std::string out = dir.file("flame.html");
    run({"flamegraph", file, "-o", out});
    std::string html = read_file(out);
    ASSERT_FALSE(html.empty());
    EXPECT_TRUE(is_utf8(html));
    EXPECT_NE(html.find("com" + kFFFD + "ute"), std::string::npos);
}

// The comparison's page declares UTF-8 too, and escapes with the same
// function as the flame graph's.
TEST_F(Utf8Test, DiffHtmlIsUtf8) {
    std::string out = dir.file("diff.html");
    run({"diff", file, file, "-o", out});
    std::string html = read_file(out);
    ASSERT_FALSE(html.empty());
    EXPECT_TRUE(is_utf8(html));
    EXPECT_NE(html.find("com" + kFFFD + "ute"), std::string::npos);
}

TEST_F(Utf8Test, PprofStringsAreUtf8) {
    if (protoc_path().empty() || pprof_proto_path().empty())
        GTEST_SKIP() << "protoc or google/pprof's profile.proto is missing (Debian "
                        "protobuf-compiler, golang-github-google-pprof-dev)";
    std::string pb = dir.file("latin1.pb.gz");
    run({"export", file, "-o", pb});
    PprofProfile p;
    std::string error;
    ASSERT_TRUE(decode_pprof(pb, dir.path(), &p, &error)) << error;
    bool renamed = false;
    for (const std::string &s : p.strings) {
        EXPECT_TRUE(is_utf8(s)) << s;
        renamed |= s == "com" + kFFFD + "ute";
    }
    EXPECT_TRUE(renamed);
}

// A real recording of a program run with a Latin-1 argument.
TEST_F(Utf8Test, RecordingWithLatin1ArgumentGivesValidJson) {
    SKIP_WITHOUT_DEMO_RECORDING();
    std::string rec = dir.file("cafe.cpcprof");
    RunResult r = cpcprof(dir, {"record", "-o", rec, "--", DEMO_EXE, "0.2", "caf\xe9"});
    ASSERT_EQ(r.status, 0) << r.err;
    json doc;
    ASSERT_TRUE(parses(run({"report", rec, "--format", "json"}), &doc));
    EXPECT_NE(doc.dump().find("caf" + kFFFD), std::string::npos);
    ASSERT_TRUE(parses(run({"diff", rec, rec, "--format", "json"}), &doc));
    ASSERT_TRUE(parses(run({"export", rec, "--format", "speedscope", "-o", "-"}), &doc));
}

} // namespace
} // namespace cpcprof::test
