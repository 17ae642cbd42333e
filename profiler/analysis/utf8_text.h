// SPDX-License-Identifier: MIT
// Text from a profile as the output formats need it.  Function names,
// paths, thread names and the recorded command line are bytes: a program
// may be called with any argument, a damaged or hostile file may hold any
// name.  JSON and protobuf strings must be UTF-8, so every writer of
// those formats (report, diff, list, export's pprof and speedscope, the
// flame graph's embedded JSON) goes through the functions here: a byte
// that does not start a valid UTF-8 sequence becomes U+FFFD, one
// replacement per byte (the "maximal subpart" practice of Unicode 15,
// 3.9, simplified to single bytes), and the rest is kept as it was.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cpcprof::analysis {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD"; // U+FFFD

// Length (1..4) of the valid UTF-8 sequence that starts at s[i], or 0 if
// the byte there does not start one (stray continuation byte, overlong
// form, surrogate, beyond U+10FFFF, cut short by the end of s).  i < s.size().
size_t utf8_length(std::string_view s, size_t i);

// s with every invalid byte replaced by U+FFFD; s itself when valid.
std::string valid_utf8(std::string_view s);

enum class JsonFlavor {
    plain,  // RFC 8259: " \ and control characters escaped
    script, // also safe inside an HTML <script> element: < > & as \u003c
            // \u003e \u0026, U+2028/U+2029 escaped
};

// Appends s as a JSON string literal, quotes included, always valid UTF-8.
void append_json_string(std::string &out, std::string_view s,
                        JsonFlavor flavor = JsonFlavor::plain);

// The same, returned.
std::string json_string(std::string_view s, JsonFlavor flavor = JsonFlavor::plain);

// Appends s as XML/HTML text or attribute value: & < > " ' escaped,
// invalid UTF-8 and control characters (but tab and newline) replaced by
// U+FFFD, so that the document stays well-formed whatever the name.  The
// flame graphs' pages (flamegraph, diff) escape with it.
void append_xml(std::string &out, std::string_view s);

} // namespace cpcprof::analysis
