// SPDX-License-Identifier: MIT
#include "profiler/analysis/table_format.h"
#include "base/paths.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace cpcprof::analysis {

std::string Table::render(const std::string &indent) const {
    std::vector<size_t> width(headers.size());
    for (size_t c = 0; c < headers.size(); ++c)
        width[c] = headers[c].size();
    for (const auto &row : rows)
        for (size_t c = 0; c < row.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], row[c].size());
    std::string out;
    auto line = [&](const std::vector<std::string> &cells) {
        std::string s = indent;
        for (size_t c = 0; c < cells.size() && c < width.size(); ++c) {
            bool last = c + 1 == cells.size();
            std::string pad(width[c] - cells[c].size(), ' ');
            if (c > 0)
                s += "  ";
            if (c < left.size() && left[c])
                s += cells[c] + (last ? "" : pad);
            else
                s += pad + cells[c];
        }
        while (!s.empty() && s.back() == ' ')
            s.pop_back();
        out += s + "\n";
    };
    line(headers);
    for (const auto &row : rows)
        line(row);
    return out;
}

std::optional<double> share(uint64_t part, uint64_t whole) {
    if (whole == 0)
        return std::nullopt;
    return double(part) / double(whole);
}

std::string percent(std::optional<double> fraction) {
    if (!fraction)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", *fraction * 100.0);
    return buf;
}

std::string fixed(std::optional<double> v, int decimals) {
    if (!v || !std::isfinite(*v))
        return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
    return buf;
}

void append_grouped(std::string &out, uint64_t v) {
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    size_t n = size_t(r.ptr - buf);
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0)
            out += ',';
        out += buf[i];
    }
}

std::string csv_field(std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos)
        return std::string(s);
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_line(const std::vector<std::string> &fields) {
    std::string out;
    for (size_t i = 0; i < fields.size(); ++i)
        out += (i ? "," : "") + csv_field(fields[i]);
    return out + "\n";
}

std::string basename_of(const std::string &path) {
    return base::base_name(path);
}

std::string shell_words(const std::vector<std::string> &words) {
    std::string out;
    for (const std::string &w : words) {
        bool plain = !w.empty() && w.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789-_./=:,+@%") == std::string::npos;
        std::string q = w;
        if (!plain) {
            q = "'";
            for (char ch : w)
                q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
            q += "'";
        }
        out += (out.empty() ? "" : " ") + q;
    }
    return out;
}

} // namespace cpcprof::analysis
