// SPDX-License-Identifier: MIT
// JSON documents of the viewing commands: built as nlohmann::ordered_json
// values (members in the order they are added), written in the layout the
// commands have always printed ("cpcprof report --format json" in
// docs/profiler.md):
//
//   {
//     "format": "cpcprof-report",
//     "run": {"command": ["./a"], "samples": {"kept": 5}},
//     "rows": [
//       {"function": "f", "self": {...}},
//       {"function": "g", "self": {...}}
//     ]
//   }
//
// Each top-level member on a line of its own; inside, one line with ", "
// and ": " separators, except for the members named as listed, arrays
// whose elements get a line each.  Strings go through append_json_string
// (invalid UTF-8 becomes U+FFFD, whatever bytes the value holds); numbers
// with a fraction are written with up to 10 significant digits, and
// infinities and NaN as null.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace cpcprof::analysis {

using Json = nlohmann::ordered_json;

// A JSON number with up to 10 significant digits, or null (nothing, or
// not finite).
std::string json_number(std::optional<double> v);

// v on one line: {"a": 1, "b": [1, 2]}.
std::string json_inline(const Json &v);

// The members of object, each "  \"key\": value" and joined by ",\n" (no
// newline after the last); the values of the members named in listed are
// arrays written one element a line (indented by four), "[]" when empty.
std::string json_members(const Json &object, std::initializer_list<std::string_view> listed = {});

// "{\n" + json_members(document, listed) + "\n}\n".
std::string json_document(const Json &document,
                          std::initializer_list<std::string_view> listed = {});

} // namespace cpcprof::analysis
