// SPDX-License-Identifier: MIT
// Owners for sqlite3 and sqlite3_stmt, and the only way this library runs
// SQL: a Statement compiled from a constant string, with data bound as
// parameters.  Nothing here builds SQL text.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cpcprof::storage::sql {

struct CloseDb {
    void operator()(sqlite3 *db) const noexcept { sqlite3_close_v2(db); }
};
// An open connection; closing it is the deleter's job.  Statements must be
// destroyed first (sqlite3_close_v2 otherwise keeps it as a zombie).
using Db = std::unique_ptr<sqlite3, CloseDb>;

// "what: SQLite's message (extended code)".
std::string describe(sqlite3 *db, int rc, std::string_view what);

class Statement {
  public:
    Statement() = default;

    // Compiles sql, which must be one statement and a literal of this
    // library.  Returns an SQLite result code.
    int prepare(sqlite3 *db, const char *sql);
    explicit operator bool() const { return stmt_ != nullptr; }
    // prepare() and the first step(): SQLITE_ROW, SQLITE_DONE or an error.
    // Read rows with  for (rc = s.query(db, sql); rc == SQLITE_ROW; rc = s.step())
    int query(sqlite3 *db, const char *sql);

    // Binding never copies: a bound string or blob must stay alive until
    // reset(), which the run()/step() users call before the data goes.
    // A bind failure is kept and returned by the next step().
    Statement &bind(int index, int64_t value);
    Statement &bind(int index, std::optional<int64_t> value);
    Statement &bind(int index, std::string_view text);
    Statement &bind_blob(int index, std::span<const uint8_t> blob); // empty = NULL
    Statement &bind_null(int index);

    // SQLITE_ROW, SQLITE_DONE or an error code.
    int step();
    // Steps to the end (rows are ignored), then resets.  SQLITE_OK or an error.
    int run();
    // Forgets the current execution and every binding.
    void reset();

    bool is_null(int col) const;
    int64_t int64(int col) const;
    std::optional<int64_t> optional_int64(int col) const;
    std::string text(int col) const;
    std::span<const uint8_t> blob(int col) const; // valid until the next step/reset

  private:
    struct Finalize {
        void operator()(sqlite3_stmt *s) const noexcept { sqlite3_finalize(s); }
    };
    std::unique_ptr<sqlite3_stmt, Finalize> stmt_;
    int bind_rc_ = SQLITE_OK;
};

// Runs a constant statement that takes no parameters.  SQLITE_OK or an error.
int exec(sqlite3 *db, const char *sql);

} // namespace cpcprof::storage::sql
