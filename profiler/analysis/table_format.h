// SPDX-License-Identifier: MIT
// Text building blocks of report and annotate: aligned text tables, JSON
// strings and numbers, RFC 4180 CSV fields, shares as percentages.
#pragma once

#include "profiler/analysis/json_layout.h"
#include "profiler/analysis/utf8_text.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cpcprof::analysis {

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
// v with its digits in groups of three: 1234567 -> "1,234,567".
void append_grouped(std::string &out, uint64_t v);

// JSON string literals (json_string, the one escaper of every JSON output)
// and numbers (json_number): utf8_text.h and json_layout.h.

// A CSV field, quoted when it holds a comma, quote, CR or LF (RFC 4180).
std::string csv_field(std::string_view s);
// Fields joined with commas, ended with "\n".
std::string csv_line(const std::vector<std::string> &fields);

// Last path component ("libc.so.6" of "/usr/lib/libc.so.6").
std::string basename_of(const std::string &path);

// The command line as a shell would take it back ('' around odd words).
std::string shell_words(const std::vector<std::string> &words);

} // namespace cpcprof::analysis
