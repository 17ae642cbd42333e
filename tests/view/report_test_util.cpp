#include "report_test_util.h"

#include "storage/symbol_writer.h"
#include "storage/writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <sstream>

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
    ADD_FAILURE() << "no column " << header;
    return "";
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
        out.push_back({cells[0], cells[1], rest.empty() ? "" : rest[0],
                       int(name_at - fn_col) / 2});
    }
    return out;
}

const Json *Json::get(const std::string &key) const {
    for (const auto &[k, v] : members)
        if (k == key)
            return &v;
    return nullptr;
}

namespace {

struct JsonParser {
    const std::string &t;
    size_t i = 0;
    std::string error;

    void ws() {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\t' || t[i] == '\r'))
            ++i;
    }
    bool fail(const char *what) {
        if (error.empty())
            error = std::string(what) + " at offset " + std::to_string(i);
        return false;
    }
    bool literal(const char *word) {
        size_t n = std::char_traits<char>::length(word);
        if (t.compare(i, n, word) != 0)
            return fail("bad literal");
        i += n;
        return true;
    }
    bool str(std::string *out) {
        if (i >= t.size() || t[i] != '"')
            return fail("expected a string");
        for (++i; i < t.size() && t[i] != '"'; ++i) {
            if (static_cast<unsigned char>(t[i]) < 0x20)
                return fail("control character in a string");
            if (t[i] != '\\') {
                *out += t[i];
                continue;
            }
            if (++i >= t.size())
                return fail("unfinished escape");
            char c = t[i];
            if (c == 'u') {
                if (i + 4 >= t.size())
                    return fail("short \\u escape");
                *out += char(std::strtol(t.substr(i + 1, 4).c_str(), nullptr, 16));
                i += 4;
            } else if (std::string("\"\\/bfnrt").find(c) != std::string::npos) {
                *out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
            } else {
                return fail("bad escape");
            }
        }
        if (i >= t.size())
            return fail("unfinished string");
        ++i;
        return true;
    }
    bool value(Json *v, int depth) {
        if (depth > 200)
            return fail("too deep");
        ws();
        if (i >= t.size())
            return fail("unexpected end");
        char c = t[i];
        if (c == '{') {
            v->type = Json::object;
            ++i;
            ws();
            if (i < t.size() && t[i] == '}')
                return ++i, true;
            for (;;) {
                ws();
                std::string key;
                Json member;
                if (!str(&key))
                    return false;
                ws();
                if (i >= t.size() || t[i++] != ':')
                    return fail("expected ':'");
                if (!value(&member, depth + 1))
                    return false;
                v->members.emplace_back(std::move(key), std::move(member));
                ws();
                if (i < t.size() && t[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < t.size() && t[i] == '}')
                    return ++i, true;
                return fail("expected ',' or '}'");
            }
        }
        if (c == '[') {
            v->type = Json::array;
            ++i;
            ws();
            if (i < t.size() && t[i] == ']')
                return ++i, true;
            for (;;) {
                Json item;
                if (!value(&item, depth + 1))
                    return false;
                v->items.push_back(std::move(item));
                ws();
                if (i < t.size() && t[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < t.size() && t[i] == ']')
                    return ++i, true;
                return fail("expected ',' or ']'");
            }
        }
        if (c == '"') {
            v->type = Json::string;
            return str(&v->s);
        }
        if (c == 't' || c == 'f') {
            v->type = Json::boolean;
            v->b = c == 't';
            return literal(c == 't' ? "true" : "false");
        }
        if (c == 'n')
            return literal("null");
        char *end = nullptr;
        v->type = Json::number;
        v->n = std::strtod(t.c_str() + i, &end);
        if (end == t.c_str() + i || !(c == '-' || (c >= '0' && c <= '9')))
            return fail("expected a value");
        i = size_t(end - t.c_str());
        return true;
    }
};

} // namespace

std::optional<Json> parse_json(const std::string &text, std::string *error) {
    JsonParser p{text, 0, {}};
    Json v;
    if (p.value(&v, 0)) {
        p.ws();
        if (p.i == text.size())
            return v;
        p.fail("text after the value");
    }
    *error = p.error;
    return std::nullopt;
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

void write_counter_profile(const std::string &file) {
    using namespace storage;
    constexpr int64_t kStart = 7'000'000'000'000;
    constexpr uint64_t kProg = 0x400000;
    std::string error;
    auto w = Writer::create(file, &error);
    ASSERT_TRUE(w) << error;
    RunInfo run;
    run.command = {"./counters"};
    run.events = {{"cycles", 1000, true},
                  {"instructions", 0, false},
                  {"cache-misses", 0, false},
                  {"cache-references", 0, false}};
    run.start_ns = 1'700'000'000'000'000'000;
    run.start_mono_ns = kStart;
    run.hw_pmu = true;
    run.call_graph = "libunwind";
    run.max_depth = 128;
    w->begin_run(run);
    w->add_process({200, 1, {"./counters"}, "/opt/counters", kStart});
    w->add_thread({200, 200, "counters"});
    w->add_module({200, "/opt/counters", "", kProg, kProg + 0x10000, 0, kStart});
    auto add = [&](int64_t ms, std::vector<uint64_t> frames, std::vector<uint64_t> values) {
        w->add_sample({200, 200, kStart + ms * 1'000'000, true, frames, values});
    };
    for (int i = 0; i < 4; ++i)
        add(1 + i, {kProg + 0x2004, kProg + 0x1010}, {1000, 500, 10, 100});
    add(10, {kProg + 0x3004, kProg + 0x1010}, {1000, 2000, 1, 50});
    w->add_accounting(200, {5, 5, 0});
    ASSERT_TRUE(w->finish(kStart + 20'000'000, &error)) << error;

    auto s = SymbolWriter::open(file, &error);
    ASSERT_TRUE(s) << error;
    const std::map<uint64_t, std::vector<SymbolFrame>> answers = {
        {0x1010, {{"main", "/src/c.c", 5, false}}},
        {0x2004, {{"hot_loop", "/src/c.c", 12, false}}},
        {0x3004, {{"templ<int, \"x\">", "/src/c.c", 22, false}}},
    };
    for (const AddressToResolve &a : s->addresses()) {
        s->add(a.module_id, a.offset, answers.at(a.offset));
        s->set_module_symbols(a.module_id, true);
    }
    ASSERT_TRUE(s->finish(&error)) << error;
}

} // namespace cpcprof::test

namespace cpcprof::test {

void write_text_file(const std::string &path, const std::string &text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream out(path, std::ios::binary);
    out << text;
    ASSERT_TRUE(out.good()) << path;
}

} // namespace cpcprof::test
