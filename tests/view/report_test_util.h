// Reading back what cpcprof report and annotate print, for their tests: the
// text table (columns split at runs of two or more spaces), a small JSON
// parser (so the JSON output is checked by parsing, not by matching
// strings), CSV records, and a profile with counter events for the
// derived columns.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cpcprof::test {

// Cells of a line separated by two or more spaces, leading spaces dropped.
std::vector<std::string> split_cells(const std::string &line);

// The table of report's text output: the first line that is neither empty
// nor a "# " comment holds the headers; rows follow until a comment line.
struct TextTable {
    std::vector<std::string> headers;
    std::vector<std::vector<std::string>> rows;
    // The cell of row under header ("" when the row is short).
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

struct Json {
    enum Type { null, boolean, number, string, array, object } type = null;
    bool b = false;
    double n = 0;
    std::string s;
    std::vector<Json> items;                           // array
    std::vector<std::pair<std::string, Json>> members; // object
    // The member named key; nullptr if this is not an object or lacks it.
    const Json *get(const std::string &key) const;
};
// nullopt with *error when text is not exactly one JSON value.
std::optional<Json> parse_json(const std::string &text, std::string *error);

// RFC 4180 records (quoted fields may hold commas, quotes, line ends).
std::vector<std::vector<std::string>> parse_csv(const std::string &text);

// A symbolized profile with four counter events (cycles sampling, period
// 1000; instructions, cache-misses, cache-references counted):
//   4 x main > hot_loop:            cycles 1000, instructions 500,
//                                   cache-misses 10, cache-references 100 each
//   1 x main > templ<int, "x">:     1000, 2000, 1, 50
// so hot_loop has CPI 2, 20 misses per 1k instructions, miss ratio 10 %,
// and templ CPI 0.5, 0.5 per 1k, 2 %.
void write_counter_profile(const std::string &path);

// Writes text to path (creating the directories above it); fails the test on error.
void write_text_file(const std::string &path, const std::string &text);

} // namespace cpcprof::test
