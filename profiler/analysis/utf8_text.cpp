// SPDX-License-Identifier: MIT
// UTF-8 repair and JSON string literals (utf8_text.h).
#include "profiler/analysis/utf8_text.h"

namespace cpcprof::analysis {

namespace {

void append_hex4(std::string &out, unsigned v) {
    static const char kHex[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4)
        out += kHex[(v >> shift) & 0xF];
}

// Appends the ASCII character c as JSON text.
void append_json_ascii(std::string &out, char c, JsonFlavor flavor) {
    switch (c) {
    case '"':
        out += "\\\"";
        return;
    case '\\':
        out += "\\\\";
        return;
    case '\n':
        out += "\\n";
        return;
    case '\t':
        out += "\\t";
        return;
    case '<':
    case '>':
    case '&':
        if (flavor == JsonFlavor::script) {
            append_hex4(out, unsigned(c));
            return;
        }
        break;
    default:
        if (static_cast<unsigned char>(c) < 0x20) {
            append_hex4(out, unsigned(c));
            return;
        }
    }
    out += c;
}

} // namespace

size_t utf8_length(std::string_view s, size_t i) {
    auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size())
        return 0;
    for (size_t k = 1; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
    // Overlong 3/4-byte forms, surrogates, beyond U+10FFFF.
    if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0) ||
        (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))
        return 0;
    return n;
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_length(s, i);
        if (n == 0) {
            out += kReplacementCharacter;
            i += 1;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

void append_json_string(std::string &out, std::string_view s, JsonFlavor flavor) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_length(s, i);
        if (n == 1) {
            append_json_ascii(out, s[i], flavor);
            i += 1;
            continue;
        }
        if (n == 0) {
            out += kReplacementCharacter;
            i += 1;
            continue;
        }
        std::string_view seq = s.substr(i, n);
        if (flavor == JsonFlavor::script && seq == "\xE2\x80\xA8")
            append_hex4(out, 0x2028);
        else if (flavor == JsonFlavor::script && seq == "\xE2\x80\xA9")
            append_hex4(out, 0x2029);
        else
            out.append(seq);
        i += n;
    }
    out += '"';
}

std::string json_string(std::string_view s, JsonFlavor flavor) {
    std::string out;
    append_json_string(out, s, flavor);
    return out;
}

namespace {

// Calls ascii(c) for each ASCII character and multi(seq) for each valid
// multi-byte character, multi(U+FFFD) for each byte of invalid UTF-8.
template <typename Ascii, typename Multi>
void walk_utf8(std::string_view s, Ascii ascii, Multi multi) {
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_length(s, i);
        if (n == 1) {
            ascii(s[i]);
            i += 1;
        } else if (n == 0) {
            multi(kReplacementCharacter);
            i += 1;
        } else {
            multi(s.substr(i, n));
            i += n;
        }
    }
}

} // namespace

void append_xml(std::string &out, std::string_view s) {
    walk_utf8(
        s,
        [&](char c) {
            switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
                    out += kReplacementCharacter;
                else
                    out += c;
            }
        },
        [&](std::string_view seq) { out += seq; });
}

} // namespace cpcprof::analysis
