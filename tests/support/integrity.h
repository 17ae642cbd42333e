// A profile's SQLite integrity, checked by SQLite itself through a plain
// read-only connection (not storage's Reader, whose checks are under test).
#pragma once

#include <string>

namespace cpcprof::test {

// PRAGMA integrity_check: "ok", or its complaints joined by "; ", or why
// the file could not be opened or checked.
std::string integrity_check(const std::string &path);

} // namespace cpcprof::test
