// SPDX-License-Identifier: MIT
#include "tests/support/command_output.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace cpcprof::test {

std::vector<std::string> split_cells(const std::string &line) {
    std::vector<std::string> out;
    size_t i = line.find_first_not_of(' ');
    while (i != std::string::npos && i < line.size()) {
        size_t end = line.find("  ", i);
        out.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
        if (end == std::string::npos)
            break;
        i = line.find_first_not_of(' ', end);
    }
    return out;
}

std::string TextTable::cell(size_t row, const std::string &header) const {
    for (size_t c = 0; c < headers.size(); ++c)
        if (headers[c] == header)
            return c < rows.at(row).size() ? rows.at(row)[c] : "";
    throw std::out_of_range("the table has no column \"" + header + "\"");
}

int TextTable::find(const std::string &header, const std::string &value) const {
    for (size_t r = 0; r < rows.size(); ++r)
        if (cell(r, header) == value)
            return int(r);
    return -1;
}

TextTable parse_table(const std::string &text) {
    TextTable t;
    std::istringstream in(text);
    std::string line;
    bool started = false;
    while (std::getline(in, line)) {
        bool comment = line.rfind("#", 0) == 0;
        if (!started) {
            if (line.empty() || comment)
                continue;
            t.headers = split_cells(line);
            started = true;
        } else if (comment || line.empty()) {
            break;
        } else {
            t.rows.push_back(split_cells(line));
        }
    }
    return t;
}

double percent_value(const std::string &cell) {
    if (cell.empty() || cell.back() != '%')
        return NAN;
    char *end = nullptr;
    double v = std::strtod(cell.c_str(), &end);
    return *end == '%' ? v : NAN;
}

std::vector<TreeLine> parse_tree(const std::string &text) {
    std::vector<TreeLine> out;
    std::istringstream in(text);
    std::string line;
    size_t fn_col = std::string::npos;
    while (std::getline(in, line)) {
        if (line.rfind("total:", 0) == 0) {
            fn_col = line.find("function");
            continue;
        }
        if (fn_col == std::string::npos || line.empty() || line[0] == '#' ||
            line.size() <= fn_col || line[fn_col - 1] != ' ') {
            if (!line.empty() && line[0] != ' ')
                fn_col = std::string::npos; // the next tree's title
            continue;
        }
        std::vector<std::string> cells = split_cells(line.substr(0, fn_col));
        size_t name_at = line.find_first_not_of(' ', fn_col);
        if (cells.size() != 2 || name_at == std::string::npos)
            continue;
        std::vector<std::string> rest = split_cells(line.substr(name_at));
        out.push_back({cells[0], cells[1], rest.empty() ? "" : rest[0], int(name_at - fn_col) / 2});
    }
    return out;
}

std::vector<std::vector<std::string>> parse_csv(const std::string &text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, any = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(field));
            field.clear();
        } else if (c == '\n') {
            row.push_back(std::move(field));
            field.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else if (c != '\r') {
            field += c;
        }
        any = true;
    }
    if (any && (!field.empty() || !row.empty())) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace cpcprof::test
