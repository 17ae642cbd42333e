// SPDX-License-Identifier: MIT
// The defensive half of opening a file that may come from someone else:
// checks on the raw header before SQLite sees the file, a hardened
// connection, integrity_check, and the comparison of sqlite_schema with the
// schema of this format version.  Reader and SymbolWriter open files
// through open_profile() only.
#pragma once

#include "storage/src/private_copy.h"
#include "storage/src/schema.h"
#include "storage/src/sqlite_handle.h"

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

namespace cpcprof::storage {

enum class Access { read_only, read_write };

// Every check below, in order, on an existing file (never created):
// nothing reads a table before integrity_check has passed and the schema is
// known to be ours.  false with *reason (without the path) on refusal.
// Access::read_only writes nothing beside path (private_copy.h): *copy
// receives the private copy when one is read; keep it until *db is closed.
// *layout: the file's (a version this code reads, perhaps an older one).
bool open_profile(const std::string &path, Access access, sql::Db *db,
                  const schema::Layout **layout, std::string *reason,
                  std::unique_ptr<PrivateCopy> *copy = nullptr);

// Reads the first 100 bytes of path and the file's size.  false with
// *reason for: a missing or unreadable path, not a regular file, an empty
// file, not SQLite, a damaged header, not a cpcprof profile (application
// id), another format version, a file shorter than its header says.
bool check_file_header(const std::string &path, std::string *reason);

// The file's format version check after SQLite has opened it (the header
// may be stale while a WAL is in use): *version is the file's, one this
// code reads.
bool check_identity(sqlite3 *db, int32_t *version, std::string *reason);

// Connection settings for a file we do not trust (sqlite.org/security.html).
bool harden(sqlite3 *db, std::string *reason);

// PRAGMA integrity_check (the first 5 problems): every page, row and
// index, what `cpcprof check` runs, so that every reader refuses what it
// refuses.  Its cost is that of reading the file once plus one lookup per
// index entry (0.17 s for 1 M samples, 32 MB; quick_check 0.15 s).
// false with the problems it names.
bool integrity_check(sqlite3 *db, std::string *reason);

// sqlite_schema must equal the statements of one layout of the file's
// format version (schema::layouts), with or without the indexes that
// finish() adds; *layout is that one.  false with *reason naming the first
// difference from the version's final form (an extra trigger, a changed
// table, ...).
bool check_schema(sqlite3 *db, int32_t version, const schema::Layout **layout, std::string *reason);

} // namespace cpcprof::storage
