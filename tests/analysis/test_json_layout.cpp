// SPDX-License-Identifier: MIT
// cpcprof::analysis::json_layout: the layout of the viewing commands' JSON documents
// (one top-level member a line, listed arrays one element a line, the rest
// inline), numbers, and strings that stay valid UTF-8 whatever their bytes.
#include "profiler/analysis/json_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using cpcprof::analysis::Json;
using cpcprof::analysis::json_document;
using cpcprof::analysis::json_inline;
using cpcprof::analysis::json_members;
using cpcprof::analysis::json_number;

TEST(JsonLayout, InlineKeepsTheOrderMembersWereAddedIn) {
    Json v = Json::object();
    v["z"] = 1;
    v["a"] = Json::array({1, 2});
    v["m"] = Json::object();
    v["n"] = nullptr;
    v["t"] = true;
    EXPECT_EQ(json_inline(v), R"({"z": 1, "a": [1, 2], "m": {}, "n": null, "t": true})");
    EXPECT_EQ(json_inline(Json::array()), "[]");
}

TEST(JsonLayout, IntegersAreExactFractionsHaveTenDigits) {
    Json v = Json::array();
    v.push_back(uint64_t(18446744073709551615u));
    v.push_back(int64_t(-9223372036854775807) - 1);
    v.push_back(0.1234567890123);
    v.push_back(2.0);
    v.push_back(1e-5);
    v.push_back(std::nan(""));
    v.push_back(std::numeric_limits<double>::infinity());
    EXPECT_EQ(json_inline(v),
              "[18446744073709551615, -9223372036854775808, 0.123456789, 2, 1e-05, null, null]");
    EXPECT_EQ(json_number(std::nullopt), "null");
    EXPECT_EQ(json_number(0.5), "0.5");
}

TEST(JsonLayout, StringsAreEscapedAndInvalidBytesReplaced) {
    Json v = Json::object();
    v["k\"ey"] = std::string("a\xFF"
                             "b\n\"\\\x01");
    v["ok"] = "caf\xC3\xA9";
    EXPECT_EQ(json_inline(v), "{\"k\\\"ey\": \"a\xEF\xBF\xBD"
                              "b\\n\\\"\\\\\\u0001\", \"ok\": \"caf\xC3\xA9\"}");
}

TEST(JsonLayout, DocumentPutsEachMemberAndEachListedElementOnALine) {
    Json doc = Json::object();
    doc["format"] = "x";
    doc["run"] = Json::object({{"n", 1}});
    doc["events"] = Json::array({Json::object({{"a", 1}}), Json::object({{"a", 2}})});
    doc["rows"] = Json::array({Json::object({{"f", "g"}}), Json::object({{"f", "h"}})});
    EXPECT_EQ(json_document(doc, {"rows"}), "{\n"
                                            "  \"format\": \"x\",\n"
                                            "  \"run\": {\"n\": 1},\n"
                                            "  \"events\": [{\"a\": 1}, {\"a\": 2}],\n"
                                            "  \"rows\": [\n"
                                            "    {\"f\": \"g\"},\n"
                                            "    {\"f\": \"h\"}\n"
                                            "  ]\n"
                                            "}\n");
}

TEST(JsonLayout, AnEmptyListedArrayStaysOnItsLine) {
    Json doc = Json::object();
    doc["rows"] = Json::array();
    EXPECT_EQ(json_document(doc, {"rows"}), "{\n  \"rows\": []\n}\n");
    EXPECT_EQ(json_members(doc), "  \"rows\": []");
}

TEST(JsonLayout, EveryDocumentParsesBackToItsValue) {
    Json doc = Json::object();
    doc["s"] = "text";
    doc["n"] = 42;
    doc["f"] = 0.25;
    doc["rows"] = Json::array({Json::object({{"a", Json::array({1, 2})}}), nullptr});
    for (auto listed : {false, true}) {
        std::string text = listed ? json_document(doc, {"rows"}) : json_document(doc);
        EXPECT_EQ(Json::parse(text), doc) << text;
    }
}
