// SPDX-License-Identifier: MIT
#include "tests/support/integrity.h"

#include <sqlite3.h>

namespace cpcprof::test {

std::string integrity_check(const std::string &path) {
    sqlite3 *db = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    std::string result;
    if (rc != SQLITE_OK) {
        result = std::string("cannot open: ") + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return result;
    }
    sqlite3_stmt *st = nullptr;
    rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr);
    while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        if (!result.empty())
            result += "; ";
        result += reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
    }
    if (rc != SQLITE_OK || result.empty())
        result = std::string("integrity_check failed: ") + sqlite3_errmsg(db);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return result;
}

int64_t committed_samples(const std::string &path) {
    sqlite3 *db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 100);
    sqlite3_stmt *st = nullptr;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sample", -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

} // namespace cpcprof::test
