// SPDX-License-Identifier: MIT
// SymbolTable: lookups, and loading it from a file that may come from
// someone else (every id and every depth checked).
#include "storage/src/profile_load.h"
#include "storage/src/sqlite_handle.h"

#include "storage/symbol_table.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace cpcprof::storage {

uint32_t SymbolTable::find(CodeAddress where) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), where,
                               [](const Entry &e, const CodeAddress &w) { return e.where < w; });
    if (it == entries_.end() || it->where != where)
        return 0;
    return static_cast<uint32_t>(it - entries_.begin()) + 1;
}

uint32_t SymbolTable::find_return(CodeAddress where) const {
    if (where.offset > 0)
        if (uint32_t chain = find({where.module_id, where.offset - 1}))
            return chain;
    return find(where);
}

std::span<const FrameRef> SymbolTable::frames(uint32_t chain) const {
    if (chain == 0 || chain > entries_.size())
        return {};
    const Entry &e = entries_[chain - 1];
    return {frames_.data() + e.first, e.count};
}

CodeAddress SymbolTable::address(uint32_t chain) const {
    if (chain == 0 || chain > entries_.size())
        return {};
    return entries_[chain - 1].where;
}

std::vector<SymbolFrame> SymbolTable::expand(uint32_t chain) const {
    std::vector<SymbolFrame> out;
    for (const FrameRef &f : frames(chain))
        out.push_back(
            {functions_[f.function], files_[f.file], static_cast<int>(f.line), f.inlined});
    return out;
}

struct SymbolTableAccess {
    static bool load(sqlite3 *db, const std::set<int64_t> &modules, SymbolTable *t,
                     std::string *reason);
};

namespace {

// Strings with ids 1, 2, ... into *texts ([0] stays ""), and for each id
// the number of its first equal text (a file may hold duplicates).
bool load_strings(sqlite3 *db, const char *query, const char *what, std::vector<std::string> *texts,
                  std::vector<uint32_t> *canonical, std::string *reason) {
    sql::Statement s;
    int rc;
    for (rc = s.query(db, query); rc == SQLITE_ROW; rc = s.step()) {
        if (s.int64(0) != static_cast<int64_t>(texts->size())) {
            *reason =
                std::string("inconsistent ") + what + " table at id " + std::to_string(s.int64(0));
            return false;
        }
        texts->push_back(s.text(1));
    }
    if (rc != SQLITE_DONE) {
        *reason = sql::describe(db, rc, (std::string("cannot read the ") + what + "s").c_str());
        return false;
    }
    std::unordered_map<std::string_view, uint32_t> first;
    canonical->resize(texts->size());
    for (uint32_t i = 0; i < texts->size(); ++i)
        (*canonical)[i] = first.try_emplace((*texts)[i], i).first->second;
    return true;
}

// A string id column: NULL = 0, else an existing id.
bool string_ref(const sql::Statement &s, int col, const std::vector<uint32_t> &canonical,
                uint32_t *out) {
    if (s.is_null(col)) {
        *out = 0;
        return true;
    }
    int64_t id = s.int64(col);
    if (id <= 0 || id >= static_cast<int64_t>(canonical.size()))
        return false;
    *out = canonical[static_cast<size_t>(id)];
    return true;
}

} // namespace

bool SymbolTableAccess::load(sqlite3 *db, const std::set<int64_t> &modules, SymbolTable *t,
                             std::string *reason) {
    std::vector<uint32_t> function_id, file_id;
    if (!load_strings(db, "SELECT id, name FROM function_name ORDER BY id", "function name",
                      &t->functions_, &function_id, reason) ||
        !load_strings(db, "SELECT id, path FROM source_file ORDER BY id", "source file", &t->files_,
                      &file_id, reason))
        return false;
    sql::Statement s;
    int rc;
    // The key is the table's order, so rows come grouped by address with
    // depths 0, 1, ...; whatever the file holds, a bad row is refused.
    for (rc = s.query(db, "SELECT module, file_offset, depth, function, source, line, inlined "
                          "FROM symbol ORDER BY module, file_offset, depth");
         rc == SQLITE_ROW; rc = s.step()) {
        CodeAddress where{s.int64(0), static_cast<uint64_t>(s.int64(1))};
        int64_t depth = s.int64(2), line = s.int64(5);
        bool continues = !t->entries_.empty() && t->entries_.back().where == where;
        FrameRef f;
        f.inlined = s.int64(6) != 0;
        bool ok = depth == (continues ? t->entries_.back().count : 0) &&
                  modules.count(where.module_id) != 0 && line >= 0 &&
                  line <= std::numeric_limits<int>::max() &&
                  string_ref(s, 3, function_id, &f.function) && string_ref(s, 4, file_id, &f.file);
        if (!ok) {
            *reason = "inconsistent symbol table at module " + std::to_string(where.module_id) +
                      " offset " + std::to_string(where.offset) + " depth " + std::to_string(depth);
            return false;
        }
        f.line = static_cast<uint32_t>(line);
        if (!continues)
            t->entries_.push_back({where, static_cast<uint32_t>(t->frames_.size()), 0});
        t->frames_.push_back(f);
        ++t->entries_.back().count;
    }
    if (rc != SQLITE_DONE) {
        *reason = sql::describe(db, rc, "cannot read the symbols");
        return false;
    }
    // SQL orders offsets as signed integers, CodeAddress as unsigned.
    auto by_where = [](const SymbolTable::Entry &a, const SymbolTable::Entry &b) {
        return a.where < b.where;
    };
    if (!std::is_sorted(t->entries_.begin(), t->entries_.end(), by_where))
        std::sort(t->entries_.begin(), t->entries_.end(), by_where);
    auto twice =
        std::adjacent_find(t->entries_.begin(), t->entries_.end(),
                           [](const auto &a, const auto &b) { return a.where == b.where; });
    if (twice != t->entries_.end()) {
        *reason = "inconsistent symbol table: module " + std::to_string(twice->where.module_id) +
                  " offset " + std::to_string(twice->where.offset) + " appears twice";
        return false;
    }
    return true;
}

bool load_symbol_table(sqlite3 *db, const std::set<int64_t> &modules, SymbolTable *table,
                       std::string *reason) {
    return SymbolTableAccess::load(db, modules, table, reason);
}

} // namespace cpcprof::storage
