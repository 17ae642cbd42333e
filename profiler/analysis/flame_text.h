// SPDX-License-Identifier: MIT
// Text building for the flame graph renderers: escaping of everything
// that comes from a profile (function names, paths, event names, the
// title) for XML/HTML text and attributes and for JSON inside a <script>
// element, numbers without streams, frame colours.
#pragma once

#include "profiler/analysis/flame_model.h"
#include "profiler/analysis/table_format.h"
#include "profiler/analysis/utf8_text.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace cpcprof::flamegraph {

// XML/HTML text and attribute values (analysis/utf8_text.h).
using analysis::append_xml;

// JSON inside a <script> element: analysis::append_json_string with
// JsonFlavor::script (< > & and U+2028/U+2029 escaped, invalid UTF-8
// replaced by U+FFFD).
inline void append_json_string(std::string &out, std::string_view s) {
    analysis::append_json_string(out, s, analysis::JsonFlavor::script);
}

void append_uint(std::string &out, uint64_t v);
// v with `decimals` digits after the point ("12.35").
void append_fixed(std::string &out, double v, int decimals);
using analysis::append_grouped; // 1234567 -> "1,234,567" (table_format.h)

// At most max_chars characters of s (UTF-8 aware), ".." ending a
// shortened one; "" when not even 3 characters fit.
std::string fit_label(std::string_view s, size_t max_chars);

// The fill colour of a frame ("rgb(r,g,b)"): warm hues chosen by a hash
// of the name for code, blue-green for inlined frames, grey without
// symbols.
std::string frame_colour(std::string_view name, analysis::FrameKind kind);

} // namespace cpcprof::flamegraph
