// SPDX-License-Identifier: MIT
#include "storage/src/open_checks.h"

#include "storage/src/private_copy.h"
#include "storage/src/schema.h"
#include "storage/src/sqlite_handle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

namespace cpcprof::storage {
namespace {

uint32_t be32(const unsigned char *p) {
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

std::string version_reason(int64_t version) {
    std::string s = "profile format version " + std::to_string(version) +
                    "; this cpcprof reads versions " + std::to_string(schema::kOldestReadable) +
                    " to " + std::to_string(schema::kVersion);
    if (version > schema::kVersion)
        s += " (the file was written by a newer cpcprof)";
    return s;
}

std::string identity_reason(uint32_t application_id) {
    return "an SQLite database but not a cpcprof profile (application_id " + hex32(application_id) +
           ", a profile has " + hex32(static_cast<uint32_t>(schema::kApplicationId)) + " \"CPCP\")";
}

int64_t file_size(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

struct SchemaRow {
    std::string type, name, tbl_name, sql;
    bool operator==(const SchemaRow &) const = default;
    bool operator<(const SchemaRow &o) const {
        return std::tie(type, name, tbl_name, sql) < std::tie(o.type, o.name, o.tbl_name, o.sql);
    }
};

int read_schema(sqlite3 *db, std::vector<SchemaRow> *rows) {
    sql::Statement s;
    int rc = s.prepare(db, "SELECT type, name, tbl_name, sql FROM sqlite_schema");
    if (rc != SQLITE_OK)
        return rc;
    while ((rc = s.step()) == SQLITE_ROW)
        rows->push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
    s.reset();
    std::sort(rows->begin(), rows->end());
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

// The schema this code creates, built by running the same statements in a
// private in-memory database, so that SQLite's own spelling of it (and its
// automatic indexes) is what the file is compared with.
bool expected_schema(const schema::Layout &layout, std::vector<SchemaRow> *base,
                     std::vector<SchemaRow> *finished, std::string *reason) {
    sqlite3 *raw = nullptr;
    int rc = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE, nullptr);
    sql::Db db(raw);
    for (const char *s : layout.tables)
        if (rc == SQLITE_OK)
            rc = sql::exec(raw, s);
    if (rc == SQLITE_OK)
        rc = read_schema(raw, base);
    for (const char *s : schema::final_indexes())
        if (rc == SQLITE_OK)
            rc = sql::exec(raw, s);
    if (rc == SQLITE_OK)
        rc = read_schema(raw, finished);
    if (rc != SQLITE_OK)
        *reason = sql::describe(raw, rc, "internal error building the expected schema");
    return rc == SQLITE_OK;
}

std::string describe_row(const SchemaRow &r) {
    return r.type + " '" + r.name + "'";
}

} // namespace

namespace {

// The first 100 bytes (SQLite's file header) and the size of a regular,
// non-empty file that starts like an SQLite database.
bool read_header(const std::string &path, unsigned char (&h)[100], uint64_t *size,
                 std::string *reason) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *reason = std::strerror(errno);
        return false;
    }
    struct stat st;
    ssize_t n = -1;
    bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular)
        n = ::pread(fd, h, sizeof h, 0);
    int saved = errno;
    ::close(fd);
    if (!regular)
        *reason = "not a regular file";
    else if (n < 0)
        *reason = std::strerror(saved);
    else if (st.st_size == 0)
        *reason = "empty file (0 bytes), not a profile";
    else if (n < static_cast<ssize_t>(sizeof h) || std::memcmp(h, "SQLite format 3", 16) != 0)
        *reason = "not an SQLite database, so not a cpcprof profile";
    else {
        *size = static_cast<uint64_t>(st.st_size);
        return true;
    }
    return false;
}

} // namespace

bool check_file_header(const std::string &path, std::string *reason) {
    unsigned char h[100];
    uint64_t size = 0;
    if (!read_header(path, h, &size, reason))
        return false;
    uint32_t page_size = (uint32_t{h[16]} << 8) | h[17];
    if (page_size == 1)
        page_size = 65536;
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
        *reason = "damaged SQLite header (page size " + std::to_string(page_size) + ")";
        return false;
    }
    // A WAL with content may hold a newer header and pages the main file
    // does not have yet (recorder killed mid-checkpoint): SQLite reconciles
    // the two, integrity_check judges the result and check_identity reads the
    // identification through SQLite.
    if (file_size(path + "-wal") > 0)
        return true;
    if (be32(h + 68) != static_cast<uint32_t>(schema::kApplicationId)) {
        *reason = identity_reason(be32(h + 68));
        return false;
    }
    if (!schema::readable(be32(h + 60))) {
        *reason = version_reason(static_cast<int32_t>(be32(h + 60)));
        return false;
    }
    if (be32(h + 56) != 1) {
        *reason = "text encoding is not UTF-8: not written by cpcprof";
        return false;
    }
    // The file must hold every page its header counts (the count is valid
    // when bytes 92..95 match the change counter at 24..27).
    uint64_t pages = be32(h + 28);
    bool count_valid = pages != 0 && be32(h + 92) == be32(h + 24);
    if (size % page_size == 0 && (!count_valid || size >= pages * page_size))
        return true;
    *reason = "truncated: " + std::to_string(size) + " bytes";
    if (count_valid)
        *reason += ", the header says " + std::to_string(pages) + " pages of " +
                   std::to_string(page_size) + " bytes";
    else
        *reason += ", not a whole number of " + std::to_string(page_size) + "-byte pages";
    return false;
}

bool check_identity(sqlite3 *db, int32_t *version, std::string *reason) {
    sql::Statement s;
    int64_t values[2] = {0, 0};
    const char *pragmas[2] = {"PRAGMA application_id", "PRAGMA user_version"};
    for (int i = 0; i < 2; ++i) {
        int rc = s.prepare(db, pragmas[i]);
        if (rc == SQLITE_OK && (rc = s.step()) == SQLITE_ROW)
            values[i] = s.int64(0);
        else {
            *reason = sql::describe(db, rc, "cannot be read");
            return false;
        }
        s.reset();
    }
    if (values[0] != schema::kApplicationId) {
        *reason = identity_reason(static_cast<uint32_t>(values[0]));
        return false;
    }
    if (!schema::readable(values[1])) {
        *reason = version_reason(values[1]);
        return false;
    }
    *version = static_cast<int32_t>(values[1]);
    return true;
}

bool check_schema(sqlite3 *db, int32_t version, const schema::Layout **layout,
                  std::string *reason) {
    std::vector<SchemaRow> actual;
    int rc = read_schema(db, &actual);
    if (rc != SQLITE_OK) {
        *reason = sql::describe(db, rc, "cannot read its schema");
        return false;
    }
    std::span<const schema::Layout> candidates = schema::layouts(version);
    std::vector<SchemaRow> base, finished;
    for (const schema::Layout &l : candidates) {
        base.clear();
        finished.clear();
        if (!expected_schema(l, &base, &finished, reason))
            return false;
        if (actual == base || actual == finished) {
            *layout = &l;
            return true;
        }
    }
    if (candidates.empty()) { // check_identity let through a version we do not read
        *reason = version_reason(version);
        return false;
    }
    // Name the first difference from the version's final form: something
    // that should not be there, then something missing.
    base.clear();
    finished.clear();
    if (!expected_schema(candidates.front(), &base, &finished, reason))
        return false;
    for (const SchemaRow &r : actual)
        if (!std::binary_search(finished.begin(), finished.end(), r)) {
            bool known = std::any_of(finished.begin(), finished.end(), [&](const SchemaRow &e) {
                return e.name == r.name && e.type == r.type;
            });
            *reason = "schema differs from format version " + std::to_string(version) + ": " +
                      describe_row(r) + (known ? " is defined differently" : " is unexpected");
            return false;
        }
    for (const SchemaRow &r : base)
        if (!std::binary_search(actual.begin(), actual.end(), r)) {
            *reason = "schema differs from format version " + std::to_string(version) + ": " +
                      describe_row(r) + " is missing";
            return false;
        }
    *reason = "schema differs from format version " + std::to_string(version);
    return false;
}

// Connection settings: no writes to the schema, no triggers or views run,
// no functions called from the schema, cells checked while read.
bool harden(sqlite3 *db, std::string *reason) {
    const std::pair<int, int> configs[] = {
        {SQLITE_DBCONFIG_DEFENSIVE, 1},   {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
        {SQLITE_DBCONFIG_ENABLE_VIEW, 0}, {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
        {SQLITE_DBCONFIG_DQS_DDL, 0},     {SQLITE_DBCONFIG_DQS_DML, 0},
        {SQLITE_DBCONFIG_ENABLE_FKEY, 0}, {SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
    };
    for (auto [op, value] : configs) {
        int rc = sqlite3_db_config(db, op, value, nullptr);
        if (rc != SQLITE_OK) {
            *reason = sql::describe(db, rc, "cannot configure SQLite defensively");
            return false;
        }
    }
    sqlite3_busy_timeout(db, 2000); // a recorder may be checkpointing
    for (const char *s :
         {"PRAGMA trusted_schema = OFF", "PRAGMA cell_size_check = ON", "PRAGMA mmap_size = 0"}) {
        int rc = sql::exec(db, s);
        if (rc != SQLITE_OK) {
            *reason = sql::describe(db, rc, "cannot be read");
            return false;
        }
    }
    return true;
}

bool integrity_check(sqlite3 *db, std::string *reason) {
    sql::Statement s;
    int rc = s.prepare(db, "PRAGMA integrity_check(5)");
    std::vector<std::string> problems;
    if (rc == SQLITE_OK)
        while ((rc = s.step()) == SQLITE_ROW)
            problems.push_back(s.text(0));
    if (rc != SQLITE_DONE && rc != SQLITE_OK) {
        // Damage bad enough to stop the check itself comes back as an error.
        int primary = rc & 0xff;
        bool damaged = primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
        *reason =
            sql::describe(db, rc, damaged ? "damaged (SQLite integrity_check" : "cannot be read");
        if (damaged)
            *reason += ")";
        return false;
    }
    if (problems.size() == 1 && problems[0] == "ok")
        return true;
    *reason = "damaged (SQLite integrity_check:";
    for (const std::string &p : problems)
        *reason += " " + p + ";";
    reason->back() = ')';
    return false;
}

bool open_profile(const std::string &path, Access access, sql::Db *db,
                  const schema::Layout **layout, std::string *reason,
                  std::unique_ptr<PrivateCopy> *copy) {
    if (!check_file_header(path, reason))
        return false;
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
    std::string name = path;
    if (access == Access::read_write) {
        flags |= SQLITE_OPEN_READWRITE;
    } else {
        flags |= SQLITE_OPEN_READONLY;
        switch (read_source(path)) {
        case ReadSource::private_copy:
            if (copy == nullptr) {
                *reason = "internal error: a journal to read without a private copy";
                return false;
            }
            *copy = PrivateCopy::make(path, reason);
            if (!*copy)
                return false;
            name = (*copy)->path();
            if ((*copy)->needs_rollback())
                flags = (flags & ~SQLITE_OPEN_READONLY) | SQLITE_OPEN_READWRITE;
            break;
        case ReadSource::immutable:
            name = immutable_uri(path);
            flags |= SQLITE_OPEN_URI;
            break;
        case ReadSource::as_is:
            break;
        }
    }
    sqlite3 *raw = nullptr;
    int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
    db->reset(raw);
    if (rc != SQLITE_OK) {
        *reason = sql::describe(raw, rc, "cannot open");
        return false;
    }
    int32_t version = 0;
    return harden(raw, reason) && integrity_check(raw, reason) &&
           check_identity(raw, &version, reason) && check_schema(raw, version, layout, reason);
}

} // namespace cpcprof::storage
