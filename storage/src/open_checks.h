// The defensive half of opening a file that may come from someone else:
// checks on the raw header before SQLite sees the file, and the comparison
// of sqlite_schema with the schema of this format version.
#pragma once

#include <sqlite3.h>

#include <string>

namespace cpcprof::storage {

// Reads the first 100 bytes of path and the file's size.  false with
// *reason for: a missing or unreadable path, not a regular file, an empty
// file, not SQLite, a damaged header, not a cpcprof profile (application
// id), another format version, a file shorter than its header says.
bool check_file_header(const std::string &path, std::string *reason);

// The file's format version check after SQLite has opened it (the header
// may be stale while a WAL is in use).
bool check_identity(sqlite3 *db, std::string *reason);

// sqlite_schema must equal the expected statements, with or without the
// indexes that finish() adds.  false with *reason naming the first
// difference (an extra trigger, a changed table, ...).
bool check_schema(sqlite3 *db, std::string *reason);

} // namespace cpcprof::storage
