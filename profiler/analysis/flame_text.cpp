// SPDX-License-Identifier: MIT
// Escaping, numbers and colours for the flame graph renderers (flame_text.h).
#include "profiler/analysis/flame_text.h"

#include "profiler/analysis/utf8_text.h"

#include <charconv>

namespace cpcprof::flamegraph {

void append_uint(std::string &out, uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_fixed(std::string &out, double v, int decimals) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    if (r.ec == std::errc())
        out.append(buf, r.ptr);
    else
        out += '0';
}

std::string fit_label(std::string_view s, size_t max_chars) {
    if (max_chars < 3)
        return {};
    // Byte offsets of character starts.
    size_t chars = 0, cut = 0;
    for (size_t i = 0; i < s.size();) {
        size_t n = analysis::utf8_length(s, i);
        i += n == 0 ? 1 : n;
        ++chars;
        if (chars == max_chars - 2)
            cut = i;
        if (chars > max_chars)
            return std::string(s.substr(0, cut)) + "..";
    }
    return std::string(s);
}

std::string frame_colour(std::string_view name, analysis::FrameKind kind) {
    // FNV-1a over the name: the same function has the same colour in
    // every graph.
    uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
    unsigned a = h % 1000, b = (h / 1000) % 1000; // 0..999
    unsigned r = 0, g = 0, bl = 0;
    switch (kind) {
    case analysis::FrameKind::Code:
        r = 205 + 50 * a / 1000;
        g = 230 * b / 1000;
        bl = 55 * a / 1000;
        break;
    case analysis::FrameKind::Inlined:
        r = 80 + 60 * a / 1000;
        g = 180 + 55 * b / 1000;
        bl = 180 + 55 * b / 1000;
        break;
    case analysis::FrameKind::NoSymbol:
        r = g = bl = 170 + 40 * a / 1000;
        break;
    case analysis::FrameKind::Root:
        r = 230, g = 200, bl = 170;
        break;
    }
    std::string out = "rgb(";
    append_uint(out, r);
    out += ',';
    append_uint(out, g);
    out += ',';
    append_uint(out, bl);
    out += ')';
    return out;
}

} // namespace cpcprof::flamegraph
