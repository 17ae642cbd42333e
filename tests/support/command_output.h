// SPDX-License-Identifier: MIT
// Reading back what the commands print, so that tests check it by its
// structure, not by matching strings: a text table (columns split at runs
// of two or more spaces), a call tree printed with indentation, and CSV
// records.  JSON output is read with nlohmann::json::parse.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cpcprof::test {

// Cells of a line separated by two or more spaces, leading spaces dropped.
std::vector<std::string> split_cells(const std::string &line);

// The table of report's text output: the first line that is neither empty
// nor a "# " comment holds the headers; rows follow until a comment line.
struct TextTable {
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
    // The cell of row under header ("" when the row is short); throws
    // std::out_of_range when there is no such column or row.
    std::string cell(size_t row, const std::string &header) const;
    // The first row whose cell under header is value; -1 if none.
    int find(const std::string &header, const std::string &value) const;
};
TextTable parse_table(const std::string &text);

// "54.55%" -> 54.55; NaN when it is not a percentage.
double percent_value(const std::string &cell);

// A tree printed by --callers/--callees: each node's share cell, samples,
// function and depth (indentation / 2), in printed order.
struct TreeLine {
    std::string share, samples, function;
    int depth = 0;
};
std::vector<TreeLine> parse_tree(const std::string &text);

// RFC 4180 records (quoted fields may hold commas, quotes, line ends).
std::vector<std::vector<std::string>> parse_csv(const std::string &text);

} // namespace cpcprof::test
