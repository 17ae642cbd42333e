// Text building blocks of report and annotate: aligned text tables, JSON
// strings and numbers, RFC 4180 CSV fields, shares as percentages.
#pragma once

#include "json_layout.h"
#include "utf8_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::report {

// Columns padded to their widest cell; numbers right-aligned, text
// (left[i]) left-aligned; the last column is not padded.
struct Table {
    std::vector<std::string> headers;
    std::vector<bool> left;
    std::vector<std::vector<std::string>> rows;

    std::string render(const std::string &indent = "") const;
};

// part / whole, or nothing when whole is 0.
std::optional<double> share(uint64_t part, uint64_t whole);
// "54.55%" (two decimals), "-" for nothing.
std::string percent(std::optional<double> fraction);
// "%.*f", "-" for nothing.
std::string fixed(std::optional<double> v, int decimals);

// A JSON string literal: quotes, escapes, control characters as \u00XX,
// invalid UTF-8 replaced by U+FFFD (the one escaper of every JSON output).
using view::json_string;
// A JSON number (up to 10 significant digits) or null.
using view::json_number;

// A CSV field, quoted when it holds a comma, quote, CR or LF (RFC 4180).
std::string csv_field(std::string_view s);
// Fields joined with commas, ended with "\n".
std::string csv_line(const std::vector<std::string> &fields);

// Last path component ("libc.so.6" of "/usr/lib/libc.so.6").
std::string basename_of(const std::string &path);

} // namespace cpcprof::report
