// SPDX-License-Identifier: MIT
// SymbolWriter: a defensive read-write connection; answers are kept in
// memory and written by finish() in one transaction, strings interned
// then, rows in key order (the symbol table is its own index).
#include "storage/symbol_writer.h"

#include "storage/src/address_scan.h"
#include "storage/src/open_checks.h"
#include "storage/src/profile_load.h"
#include "storage/src/sqlite_handle.h"

#include "base/clock.h"

#include <time.h>

#include <map>
#include <string_view>
#include <unordered_map>

namespace cpcprof::storage {

using sql::Statement;

namespace {

using base::realtime_ns;

// Text -> id 1, 2, ... in order of first use.
struct Interner {
    std::unordered_map<std::string_view, int64_t> ids; // views into the answers, which stay put
    std::vector<std::string_view> texts;

    // NULL (empty optional) for "".
    std::optional<int64_t> id(std::string_view text) {
        if (text.empty())
            return std::nullopt;
        auto [it, fresh] = ids.try_emplace(text, static_cast<int64_t>(texts.size() + 1));
        if (fresh)
            texts.push_back(text);
        return it->second;
    }
};

} // namespace

struct SymbolWriter::Impl {
    sql::Db db;
    LoadedProfile profile;
    std::string error;
    // Ordered like the table's key (module, file_offset as a signed integer),
    // so that inserting appends.
    std::map<std::pair<int64_t, int64_t>, std::vector<SymbolFrame>> answers;
    std::map<int64_t, bool> module_symbols;

    void fail(std::string what) {
        if (error.empty())
            error = std::move(what);
    }

    bool usable(const char *call) {
        if (!error.empty())
            return false;
        if (!db) {
            fail(std::string(call) + " after finish()");
            return false;
        }
        return true;
    }

    bool known_module(const char *call, int64_t module_id) {
        if (profile.module_ids.count(module_id) != 0)
            return true;
        fail(std::string(call) + ": unknown module id " + std::to_string(module_id));
        return false;
    }

    // false with the failure recorded.
    bool run(Statement &s, const char *what) {
        int rc = s.run();
        if (rc == SQLITE_OK)
            return true;
        fail(sql::describe(db.get(), rc, what));
        return false;
    }

    bool prepare(Statement &s, const char *sql) {
        int rc = s.prepare(db.get(), sql);
        if (rc == SQLITE_OK)
            return true;
        fail(sql::describe(db.get(), rc, sql));
        return false;
    }

    bool exec(const char *sql) {
        int rc = sql::exec(db.get(), sql);
        if (rc == SQLITE_OK)
            return true;
        fail(sql::describe(db.get(), rc, sql));
        return false;
    }

    bool write_all();
    bool write_strings(Interner &functions, Interner &files);
};

std::unique_ptr<SymbolWriter> SymbolWriter::open(const std::string &path, std::string *error) {
    auto impl = std::make_unique<Impl>();
    std::string reason;
    const schema::Layout *layout = nullptr;
    if (!open_profile(path, Access::read_write, &impl->db, &layout, &reason) ||
        !impl->profile.load(impl->db.get(), *layout, LoadedProfile::Symbols::skip, &reason)) {
        *error = path + ": " + reason;
        return nullptr;
    }
    // Versions 2 to 4 have the same symbol tables: their symbols are
    // rewritten in place and the version stays.  Version 1 has none, and
    // a file is not converted behind its owner's back.
    if (!layout->symbols) {
        *error = path + ": profile format version " + std::to_string(layout->version) +
                 " has no symbol tables to write; this cpcprof reads it as never symbolized "
                 "but does not convert it: record the program again for function names";
        return nullptr;
    }
    return std::unique_ptr<SymbolWriter>(new SymbolWriter(std::move(impl)));
}

SymbolWriter::SymbolWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SymbolWriter::~SymbolWriter() = default;

bool SymbolWriter::ok() const {
    return impl_->error.empty();
}
const std::string &SymbolWriter::error() const {
    return impl_->error;
}

std::vector<AddressToResolve> SymbolWriter::addresses() {
    Impl &m = *impl_;
    std::vector<AddressToResolve> out;
    if (!m.usable("addresses()"))
        return out;
    std::string reason;
    if (!collect_addresses(m.db.get(), m.profile, &out, &reason))
        m.fail(reason);
    return out;
}

void SymbolWriter::add(int64_t module_id, uint64_t offset, std::span<const SymbolFrame> frames) {
    Impl &m = *impl_;
    if (!m.usable("add()") || !m.known_module("add()", module_id))
        return;
    std::pair key{module_id, static_cast<int64_t>(offset)};
    if (frames.empty())
        m.answers.erase(key);
    else
        m.answers[key].assign(frames.begin(), frames.end());
}

void SymbolWriter::add_return(int64_t module_id, uint64_t offset,
                              std::span<const SymbolFrame> frames) {
    Impl &m = *impl_;
    if (!m.usable("add_return()") || !m.known_module("add_return()", module_id))
        return;
    if (offset == 0) {
        m.fail("add_return(): offset 0 has no call before it");
        return;
    }
    static const SymbolFrame unknown{};
    std::span<const SymbolFrame> stored = frames.empty() ? std::span(&unknown, 1) : frames;
    m.answers[{module_id, static_cast<int64_t>(offset - 1)}].assign(stored.begin(), stored.end());
}

void SymbolWriter::set_module_symbols(int64_t module_id, bool has_symbols) {
    Impl &m = *impl_;
    if (m.usable("set_module_symbols()") && m.known_module("set_module_symbols()", module_id))
        m.module_symbols[module_id] = has_symbols;
}

bool SymbolWriter::keep_earlier(int64_t module_id) {
    Impl &m = *impl_;
    if (!m.usable("keep_earlier()") || !m.known_module("keep_earlier()", module_id))
        return false;
    Statement had;
    if (!m.prepare(had, "SELECT has_symbols FROM module WHERE id = ?1"))
        return false;
    had.bind(1, module_id);
    if (had.step() != SQLITE_ROW || had.optional_int64(0) != 1)
        return false;
    Statement rows;
    if (!m.prepare(rows, "SELECT s.file_offset, f.name, sf.path, s.line, s.inlined "
                         "FROM symbol s LEFT JOIN function_name f ON f.id = s.function "
                         "LEFT JOIN source_file sf ON sf.id = s.source "
                         "WHERE s.module = ?1 ORDER BY s.file_offset, s.depth"))
        return false;
    rows.bind(1, module_id);
    std::map<std::pair<int64_t, int64_t>, std::vector<SymbolFrame>> earlier;
    int rc = SQLITE_ROW;
    while ((rc = rows.step()) == SQLITE_ROW)
        earlier[{module_id, rows.int64(0)}].push_back({rows.is_null(1) ? "" : rows.text(1),
                                                       rows.is_null(2) ? "" : rows.text(2),
                                                       int(rows.int64(3)), rows.int64(4) != 0});
    if (rc != SQLITE_DONE) {
        m.fail(sql::describe(m.db.get(), rc, "read the earlier symbols"));
        return false;
    }
    if (earlier.empty())
        return false;
    m.answers.erase(m.answers.lower_bound({module_id, INT64_MIN}),
                    m.answers.upper_bound({module_id, INT64_MAX}));
    m.answers.merge(earlier);
    m.module_symbols[module_id] = true;
    return true;
}

bool SymbolWriter::Impl::write_strings(Interner &functions, Interner &files) {
    Statement ins;
    const std::pair<Interner *, const char *> tables[] = {
        {&functions, "INSERT INTO function_name(id, name) VALUES (?1, ?2)"},
        {&files, "INSERT INTO source_file(id, path) VALUES (?1, ?2)"},
    };
    for (auto [interner, sql] : tables) {
        if (!prepare(ins, sql))
            return false;
        for (size_t i = 0; i < interner->texts.size(); ++i) {
            ins.bind(1, static_cast<int64_t>(i + 1)).bind(2, interner->texts[i]);
            if (!run(ins, "insert symbol string"))
                return false;
        }
    }
    return true;
}

bool SymbolWriter::Impl::write_all() {
    if (!exec("DELETE FROM symbol") || !exec("DELETE FROM function_name") ||
        !exec("DELETE FROM source_file") || !exec("UPDATE module SET has_symbols = NULL"))
        return false;
    Interner functions, files;
    Statement ins;
    if (!prepare(ins, "INSERT INTO symbol(module, file_offset, depth, function, source, line, "
                      "inlined) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"))
        return false;
    for (const auto &[key, frames] : answers)
        for (size_t depth = 0; depth < frames.size(); ++depth) {
            const SymbolFrame &f = frames[depth];
            ins.bind(1, key.first).bind(2, key.second).bind(3, static_cast<int64_t>(depth));
            ins.bind(4, functions.id(f.function)).bind(5, files.id(f.file));
            ins.bind(6, int64_t{f.line > 0 ? f.line : 0}).bind(7, int64_t{f.inlined});
            if (!run(ins, "insert symbol"))
                return false;
        }
    if (!write_strings(functions, files))
        return false;
    Statement mod;
    if (!prepare(mod, "UPDATE module SET has_symbols = ?2 WHERE id = ?1"))
        return false;
    for (const auto &[id, has] : module_symbols)
        if (!run(mod.bind(1, id).bind(2, int64_t{has}), "set module symbols"))
            return false;
    Statement done;
    return prepare(done, "UPDATE run SET symbolized_ns = ?1 WHERE id = 1") &&
           run(done.bind(1, realtime_ns()), "mark the run symbolized");
}

bool SymbolWriter::finish(std::string *error) {
    Impl &m = *impl_;
    bool done = m.usable("finish()") && m.exec("BEGIN IMMEDIATE");
    if (done) {
        done = m.write_all() && m.exec("COMMIT");
        if (!done)
            sql::exec(m.db.get(), "ROLLBACK");
    }
    m.db.reset();
    if (!done && error != nullptr)
        *error = m.error;
    return done;
}

} // namespace cpcprof::storage
