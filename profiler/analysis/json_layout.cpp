// SPDX-License-Identifier: MIT
// The layout of the viewing commands' JSON documents (json_layout.h).
#include "profiler/analysis/json_layout.h"

#include "profiler/analysis/utf8_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace cpcprof::analysis {

namespace {

void append_inline(std::string &out, const Json &v) {
    switch (v.type()) {
    case Json::value_t::object: {
        out += '{';
        bool first = true;
        for (const auto &[key, member] : v.items()) {
            out += first ? "" : ", ";
            first = false;
            append_json_string(out, key);
            out += ": ";
            append_inline(out, member);
        }
        out += '}';
        return;
    }
    case Json::value_t::array: {
        out += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            out += i ? ", " : "";
            append_inline(out, v[i]);
        }
        out += ']';
        return;
    }
    case Json::value_t::string:
        append_json_string(out, v.get_ref<const std::string &>());
        return;
    case Json::value_t::boolean:
        out += v.get<bool>() ? "true" : "false";
        return;
    case Json::value_t::number_integer:
        out += std::to_string(v.get<int64_t>());
        return;
    case Json::value_t::number_unsigned:
        out += std::to_string(v.get<uint64_t>());
        return;
    case Json::value_t::number_float:
        out += json_number(v.get<double>());
        return;
    case Json::value_t::null:
    case Json::value_t::binary:
    case Json::value_t::discarded:
        break;
    }
    out += "null";
}

} // namespace

std::string json_number(std::optional<double> v) {
    if (!v || !std::isfinite(*v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", *v);
    return buf;
}

std::string json_inline(const Json &v) {
    std::string out;
    append_inline(out, v);
    return out;
}

std::string json_members(const Json &object, std::initializer_list<std::string_view> listed) {
    std::string out;
    for (const auto &[key, member] : object.items()) {
        out += out.empty() ? "  " : ",\n  ";
        append_json_string(out, key);
        out += ": ";
        bool one_a_line =
            member.is_array() && std::find(listed.begin(), listed.end(), key) != listed.end();
        if (!one_a_line || member.empty()) {
            append_inline(out, member);
            continue;
        }
        for (size_t i = 0; i < member.size(); ++i) {
            out += i ? ",\n    " : "[\n    ";
            append_inline(out, member[i]);
        }
        out += "\n  ]";
    }
    return out;
}

std::string json_document(const Json &document, std::initializer_list<std::string_view> listed) {
    return "{\n" + json_members(document, listed) + "\n}\n";
}

} // namespace cpcprof::analysis
