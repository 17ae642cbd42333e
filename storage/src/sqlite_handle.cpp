// SPDX-License-Identifier: MIT
#include "storage/src/sqlite_handle.h"

namespace cpcprof::storage::sql {

std::string describe(sqlite3 *db, int rc, std::string_view what) {
    std::string s(what);
    s += ": ";
    // sqlite3_errmsg describes the connection's last error, which is rc's
    // unless rc came from somewhere else (a bind, say); fall back to the
    // generic text then.
    if (db != nullptr && sqlite3_extended_errcode(db) == rc)
        s += sqlite3_errmsg(db);
    else
        s += sqlite3_errstr(rc);
    s += " (SQLite code " + std::to_string(rc) + ")";
    return s;
}

int Statement::prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s = nullptr;
    const char *tail = nullptr;
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, &tail);
    stmt_.reset(s);
    bind_rc_ = SQLITE_OK;
    if (rc == SQLITE_OK && s == nullptr)
        rc = SQLITE_MISUSE; // empty statement: a bug of ours
    if (rc == SQLITE_OK && tail != nullptr && *tail != '\0')
        rc = SQLITE_MISUSE; // more than one statement: a bug of ours
    if (rc != SQLITE_OK)
        stmt_.reset();
    return rc;
}

int Statement::query(sqlite3 *db, const char *sql) {
    int rc = prepare(db, sql);
    return rc == SQLITE_OK ? step() : rc;
}

Statement &Statement::bind(int index, int64_t value) {
    int rc = sqlite3_bind_int64(stmt_.get(), index, value);
    if (bind_rc_ == SQLITE_OK)
        bind_rc_ = rc;
    return *this;
}

Statement &Statement::bind(int index, std::optional<int64_t> value) {
    return value ? bind(index, *value) : bind_null(index);
}

Statement &Statement::bind(int index, std::string_view text) {
    // An empty view may have a null data(), which SQLite would bind as
    // NULL; bind a real empty string instead.
    const char *p = text.empty() ? "" : text.data();
    int rc = sqlite3_bind_text64(stmt_.get(), index, p, text.size(), SQLITE_STATIC, SQLITE_UTF8);
    if (bind_rc_ == SQLITE_OK)
        bind_rc_ = rc;
    return *this;
}

Statement &Statement::bind_blob(int index, std::span<const uint8_t> blob) {
    if (blob.empty())
        return bind_null(index);
    int rc = sqlite3_bind_blob64(stmt_.get(), index, blob.data(), blob.size(), SQLITE_STATIC);
    if (bind_rc_ == SQLITE_OK)
        bind_rc_ = rc;
    return *this;
}

Statement &Statement::bind_null(int index) {
    int rc = sqlite3_bind_null(stmt_.get(), index);
    if (bind_rc_ == SQLITE_OK)
        bind_rc_ = rc;
    return *this;
}

int Statement::step() {
    if (bind_rc_ != SQLITE_OK)
        return bind_rc_;
    return sqlite3_step(stmt_.get());
}

int Statement::run() {
    int rc;
    while ((rc = step()) == SQLITE_ROW) {
    }
    reset();
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

void Statement::reset() {
    sqlite3_reset(stmt_.get());
    sqlite3_clear_bindings(stmt_.get());
    bind_rc_ = SQLITE_OK;
}

bool Statement::is_null(int col) const {
    return sqlite3_column_type(stmt_.get(), col) == SQLITE_NULL;
}

int64_t Statement::int64(int col) const {
    return sqlite3_column_int64(stmt_.get(), col);
}

std::optional<int64_t> Statement::optional_int64(int col) const {
    if (is_null(col))
        return std::nullopt;
    return int64(col);
}

std::string Statement::text(int col) const {
    const unsigned char *p = sqlite3_column_text(stmt_.get(), col);
    int n = sqlite3_column_bytes(stmt_.get(), col);
    if (p == nullptr || n <= 0)
        return {};
    return std::string(reinterpret_cast<const char *>(p), static_cast<size_t>(n));
}

std::span<const uint8_t> Statement::blob(int col) const {
    const void *p = sqlite3_column_blob(stmt_.get(), col);
    int n = sqlite3_column_bytes(stmt_.get(), col);
    if (p == nullptr || n <= 0)
        return {};
    return {static_cast<const uint8_t *>(p), static_cast<size_t>(n)};
}

int exec(sqlite3 *db, const char *sql) {
    Statement s;
    int rc = s.prepare(db, sql);
    return rc == SQLITE_OK ? s.run() : rc;
}

} // namespace cpcprof::storage::sql
